-- Per watched chain, the chain the claims' proofs come from: its genesis block's hash. A node whose genesis
-- differs serves another chain (a development node started afresh): its blocks prove nothing about these
-- claims, and the reconciler's cursor counts blocks of the old one.
create table chain_identities (
  chain_id text primary key,
  genesis_hash text not null check (genesis_hash ~ '^0x[0-9a-f]{64}$'),
  recorded_at timestamptz not null default now()
);

-- Settled claims stay settled, with one exception: a development chain replaced by another, where a
-- redemption on the vanished chain minted nothing on the new one. The reconciler, in the transaction that
-- records the new chain, sets `claims.replaced_chain` to that chain's id and sends the chain's successful
-- claims back to `claimed`, for the new chain to decide (README, "A development chain started afresh").
create or replace function claim_transactions_keep_settled() returns trigger
language plpgsql as $$
begin
  if old.status in ('successful', 'failed') and new.status <> old.status
     and not (old.status = 'successful' and new.status = 'claimed' and old.watched
              and current_setting('claims.replaced_chain', true) = old.chain_id) then
    raise exception 'claim % is % and cannot become %', old.id, old.status, new.status
      using errcode = 'GN002';
  end if;
  return new;
end
$$;
