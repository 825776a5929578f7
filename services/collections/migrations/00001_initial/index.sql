-- Trigram search on collection names. The extension may already exist, or (on a managed database) only
-- an administrator may create it: neither must stop the service, which then searches without the index.
do $$
begin
  create extension if not exists pg_trgm;
exception when others then
  raise notice 'pg_trgm is not available (%), name search will not be indexed', sqlerrm;
end
$$;

create table third_parties (
  -- urn:decentraland:<network>:collections-thirdparty:<name>
  id text primary key,
  managers text[] not null check (cardinality(managers) > 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table collections (
  id uuid primary key,
  name text not null check (char_length(name) between 1 and 42 and name = btrim(name)),
  eth_address text not null check (eth_address ~ '^0x[0-9a-f]{40}$'),
  salt text,
  contract_address text,
  urn text not null,
  -- set for a third-party collection: urn = third_party_id || ':' || urn_suffix
  third_party_id text references third_parties (id),
  urn_suffix text,
  is_published boolean not null default false,
  is_approved boolean not null default false,
  minters text[] not null default '{}',
  managers text[] not null default '{}',
  forum_link text,
  forum_id integer,
  lock timestamptz,
  reviewed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint collections_kind check (
    (third_party_id is null and urn_suffix is null and salt is not null and contract_address is not null)
    or (third_party_id is not null and urn_suffix is not null and urn = third_party_id || ':' || urn_suffix)
  )
);

-- Names are unique among standard collections, ignoring case: a constraint, so concurrent creates cannot race.
create unique index collections_standard_name_key on collections (lower(btrim(name))) where third_party_id is null;
create unique index collections_urn_key on collections (urn);
create index collections_eth_address on collections (eth_address);
create index collections_managers on collections using gin (managers);
create index collections_minters on collections using gin (minters);
create index collections_third_party on collections (third_party_id) where third_party_id is not null;
create index collections_created_at on collections (created_at desc, id);
create index collections_published_created_at on collections (created_at desc, id) where is_published;

do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    -- fastupdate off: a pending list would be scanned linearly by every search until a vacuum merges it
    execute 'create index collections_name_trgm on collections using gin (lower(name) gin_trgm_ops) with (fastupdate = off)';
  end if;
end
$$;

create table items (
  id uuid primary key,
  collection_id uuid not null references collections (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 42 and name = btrim(name)),
  type text not null check (type in ('wearable', 'emote')),
  content_hash text not null,
  -- decimal token id in the collection contract, set when a standard collection is published
  blockchain_item_id text,
  -- content hash sent to the committee with a third-party publication (the item then waits for approval)
  submitted_content_hash text,
  seq bigint generated always as identity,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index items_collection_order on items (collection_id, created_at, seq);

create table tos_acceptances (
  id bigint generated always as identity primary key,
  collection_id uuid not null references collections (id) on delete cascade,
  signer text not null,
  email text not null,
  event text not null check (event in ('publish_collection_tos', 'publish_third_party_items_tos')),
  hashes text[] not null,
  created_at timestamptz not null default now()
);
create index tos_acceptances_collection on tos_acceptances (collection_id, event);

create table slot_usage_cheques (
  id bigint generated always as identity primary key,
  collection_id uuid not null references collections (id) on delete cascade,
  third_party_id text not null references third_parties (id),
  signer text not null,
  qty integer not null check (qty > 0),
  salt text not null,
  signature text not null unique,
  created_at timestamptz not null default now()
);
create index slot_usage_cheques_collection on slot_usage_cheques (collection_id, id desc);
