-- Indexes that give each background job exactly the rows it changes, so that a tick costs what it does,
-- not the size of the table (built concurrently: writes go on meanwhile).
--
-- Claims the clock still governs (unwatched, claimed or pending), by chain, status and expiry: the sweeper
-- reads the expired `claimed` ones of each chain, the adoption of a chain given an RPC URL its live ones;
-- neither walks another chain's claims, a pending claim past its expiry, or any settled claim.
create index concurrently if not exists claim_transactions_unwatched
  on claim_transactions (chain_id, status, expires_at)
  where not watched and status in ('claimed', 'pending');
drop index concurrently if exists claim_transactions_claimed_expiry;

-- The reconciler's work list, by chain, contract and expiry: the contracts to ask the chain about are a
-- skip over the index (one probe per contract), the claims past the final block's timestamp a range of it.
create index concurrently if not exists claim_transactions_watched_expiry
  on claim_transactions (chain_id, contract, expires_at)
  where watched and status in ('claimed', 'pending');
drop index concurrently if exists claim_transactions_watched_live;
