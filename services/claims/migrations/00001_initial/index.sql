-- Claims service, initial schema.
-- A reward points at its most recent claim; whether that claim still holds it ("live") depends on the
-- clock, so liveness is computed on read (claim_is_live) and never stored.

create function claim_is_live(status text, expires_at timestamptz) returns boolean
language sql stable as $$
  select status in ('pending', 'successful') or (status = 'claimed' and expires_at > now())
$$;

create table claim_transactions (
  id uuid primary key,
  "user" text not null check ("user" ~ '^0x[0-9a-f]{40}$'),
  chain_id text not null check (chain_id in ('1', '3', '4', '5', '42', '137', '80001', '80002', '11155111')),
  contract text not null check (contract ~ '^0x[0-9a-f]{40}$'),
  transaction_payload text not null check (transaction_payload ~ '^0x[0-9a-f]+$'),
  transaction_payload_hash text not null check (transaction_payload_hash ~ '^0x[0-9a-f]{64}$'),
  status text not null default 'claimed' check (status in ('claimed', 'pending', 'successful', 'failed')),
  transaction_hash text check (transaction_hash ~ '^0x[0-9a-f]{64}$'),
  rewards uuid[] not null check (cardinality(rewards) between 1 and 100),
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint pending_has_transaction_hash check (status <> 'pending' or transaction_hash is not null)
);

create index claim_transactions_user_created on claim_transactions ("user", created_at desc, id desc);
-- the reconciler's and the sweeper's work lists
create index claim_transactions_pending on claim_transactions (chain_id, updated_at) where status = 'pending';
create index claim_transactions_claimed_expiry on claim_transactions (expires_at) where status = 'claimed';
-- one on-chain transaction settles one claim
create unique index claim_transactions_transaction_hash on claim_transactions (chain_id, transaction_hash)
  where transaction_hash is not null;

create table rewards (
  id uuid primary key,
  "user" text not null check ("user" ~ '^0x[0-9a-f]{40}$'),
  chain_id text not null check (chain_id in ('1', '3', '4', '5', '42', '137', '80001', '80002', '11155111')),
  contract text not null check (contract ~ '^0x[0-9a-f]{40}$'),
  item_id numeric(78, 0) not null
    check (item_id >= 0 and item_id <= 115792089237316195423570985008687907853269984665640564039457584007913129639935),
  campaign text,
  -- the most recent claim of this reward; it holds the reward only while claim_is_live
  claim_transaction_id uuid references claim_transactions (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index rewards_user_created on rewards ("user", created_at desc, id desc);
create index rewards_claim_transaction on rewards (claim_transaction_id);

-- Second line of defence behind the row locks of the create: a reward may move to a new claim only
-- when its current claim no longer holds it. The pointer being a single column, a reward is in at most
-- one live claim.
create function rewards_keep_one_live_claim() returns trigger
language plpgsql as $$
begin
  if old.claim_transaction_id is not null
     and new.claim_transaction_id is distinct from old.claim_transaction_id
     and exists (
       select 1 from claim_transactions c
       where c.id = old.claim_transaction_id and claim_is_live(c.status, c.expires_at)
     ) then
    raise exception 'reward % is already in the live claim %', old.id, old.claim_transaction_id
      using errcode = 'GN001';
  end if;
  return new;
end
$$;

create trigger rewards_keep_one_live_claim
  before update of claim_transaction_id on rewards
  for each row execute function rewards_keep_one_live_claim();

-- Settled claims stay settled (a failed claim has released its rewards; it must not take them back).
create function claim_transactions_keep_settled() returns trigger
language plpgsql as $$
begin
  if old.status in ('successful', 'failed') and new.status <> old.status then
    raise exception 'claim % is % and cannot become %', old.id, old.status, new.status
      using errcode = 'GN002';
  end if;
  return new;
end
$$;

create trigger claim_transactions_keep_settled
  before update of status on claim_transactions
  for each row execute function claim_transactions_keep_settled();

-- Every read goes through this view: a `claimed` claim past its expiry reads as `failed`, updated at its
-- expiry, whether or not the sweeper has written it yet.
create view claim_transactions_current as
select
  id,
  "user",
  chain_id,
  contract,
  transaction_payload,
  transaction_payload_hash,
  case when status = 'claimed' and expires_at <= now() then 'failed' else status end as status,
  transaction_hash,
  rewards,
  expires_at,
  created_at,
  case when status = 'claimed' and expires_at <= now() then greatest(updated_at, expires_at)
    else updated_at end as updated_at
from claim_transactions;

create view rewards_current as
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
  on live.id = r.claim_transaction_id and claim_is_live(live.status, live.expires_at);

-- Idempotency-Key of create, per user: the same key and body give back the same claim.
create table idempotency_keys (
  "user" text not null,
  key text not null,
  request_hash text not null,
  claim_transaction_id uuid not null references claim_transactions (id) deferrable initially deferred,
  created_at timestamptz not null default now(),
  primary key ("user", key)
);

create index idempotency_keys_created on idempotency_keys (created_at);
