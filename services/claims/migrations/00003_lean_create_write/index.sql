-- The create's one write statement (src/db/claim-transactions.ts insertClaim) carried costs that bought
-- nothing the service does not already guarantee; measured under load (BENCHMARKS.md), the first two were a large share of
-- PostgreSQL's CPU per create.
--
-- 1. The foreign key from a reward's pointer to its claim. Each pointer update ran the key's check, a
--    query that also locks the claim row (an extra WAL record per create). The pointer is only ever set
--    by that statement, to the claim it inserts in the same statement, and claims are never deleted.
--    The statement now refuses to write a half claim by itself: it points the rewards only once the claim
--    is inserted, and aborts (GN003, below) when it could not point every one of them.
alter table rewards drop constraint rewards_claim_transaction_id_fkey;

create function claims_abort(message text) returns boolean
language plpgsql as $$
begin
  raise exception '%', message using errcode = 'GN003';
end
$$;

-- 2. Format checks (regular expressions) on values the service either computes itself (the payload, its
--    hash) or has validated against its request schemas (addresses, transaction hashes), which are the
--    one source of truth for formats. PostgreSQL evaluates every CHECK of a table on each insert and
--    update, re-reading each stored expression once per statement, and the payload's is a regular
--    expression over ~900 characters. The checks that state the service's invariants stay: chain ids,
--    statuses, a pending claim's transaction hash, 1 to 100 rewards, uint256 item ids.
alter table claim_transactions
  drop constraint claim_transactions_user_check,
  drop constraint claim_transactions_contract_check,
  drop constraint claim_transactions_transaction_payload_check,
  drop constraint claim_transactions_transaction_payload_hash_check,
  drop constraint claim_transactions_transaction_hash_check;

alter table rewards
  drop constraint rewards_user_check,
  drop constraint rewards_contract_check;

-- 3. The trigger that keeps a reward in one live claim only has work when the reward already points at a
--    claim; a WHEN condition decides that without calling PL/pgSQL for the first claim of a reward.
drop trigger rewards_keep_one_live_claim on rewards;
create trigger rewards_keep_one_live_claim
  before update of claim_transaction_id on rewards
  for each row
  when (old.claim_transaction_id is not null
        and new.claim_transaction_id is distinct from old.claim_transaction_id)
  execute function rewards_keep_one_live_claim();
