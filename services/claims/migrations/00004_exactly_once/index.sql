-- Exactly once on chain. A claim on a chain the service watches (an RPC URL configured when it was
-- created, or adopted by the reconciler while still live) is freed only by the reconciler, on proof from
-- the chain that its voucher can no longer be redeemed: its expiry alone proves nothing (the voucher may
-- have been redeemed and never reported). A claim on an unwatched chain keeps the clock rule: an expired
-- `claimed` claim is failed at expires_at.
alter table claim_transactions add column watched boolean not null default false;

create function claim_is_live(status text, expires_at timestamptz, watched boolean) returns boolean
language sql stable as $$
  select status in ('pending', 'successful')
    or (status = 'claimed' and (watched or expires_at > now()))
$$;

create or replace function rewards_keep_one_live_claim() returns trigger
language plpgsql as $$
begin
  if old.claim_transaction_id is not null
     and new.claim_transaction_id is distinct from old.claim_transaction_id
     and exists (
       select 1 from claim_transactions c
       where c.id = old.claim_transaction_id and claim_is_live(c.status, c.expires_at, c.watched)
     ) then
    raise exception 'reward % is already in the live claim %', old.id, old.claim_transaction_id
      using errcode = 'GN001';
  end if;
  return new;
end
$$;

create or replace view claim_transactions_current as
select
  id,
  "user",
  chain_id,
  contract,
  transaction_payload,
  transaction_payload_hash,
  case when status = 'claimed' and not watched and expires_at <= now() then 'failed' else status end as status,
  transaction_hash,
  rewards,
  expires_at,
  created_at,
  case when status = 'claimed' and not watched and expires_at <= now() then greatest(updated_at, expires_at)
    else updated_at end as updated_at
from claim_transactions;

create or replace view rewards_current as
select
  r.id,
  r."user",
  r.chain_id,
  r.contract,
  r.item_id::text as item_id,
  r.campaign,
  live.id is null as claimable,
  live.id as claim_transaction_id,
  r.created_at,
  r.updated_at
from rewards r
left join claim_transactions live
  on live.id = r.claim_transaction_id and claim_is_live(live.status, live.expires_at, live.watched);

drop function claim_is_live(text, timestamptz);

-- The reconciler's work list: every live claim of a watched chain, reported or not.
create index claim_transactions_watched_live on claim_transactions (chain_id, id)
  where watched and status in ('claimed', 'pending');
-- The sweeper only fails unwatched claims.
drop index claim_transactions_claimed_expiry;
create index claim_transactions_claimed_expiry on claim_transactions (expires_at)
  where status = 'claimed' and not watched;

-- Per chain, the last block whose Claimed events the reconciler has applied (a block deep enough to be final).
create table reconciler_cursors (
  chain_id text primary key,
  block bigint not null check (block >= 0),
  updated_at timestamptz not null default now()
);
