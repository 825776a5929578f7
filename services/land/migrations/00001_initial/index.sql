-- Land: districts, estates, parcels, publications, contributions.
-- Addresses are stored lower-case; times that the API exposes as milliseconds since epoch are bigint.

create table districts (
  id          uuid primary key,
  name        text not null check (length(name) between 1 and 200),
  description text not null default '',
  link        text not null default '',
  public      boolean not null default false,
  updated_at  timestamptz not null default now()
);

create table estates (
  id                  text primary key check (id ~ '^[0-9A-Za-z_-]{1,80}$'),
  owner               text check (owner ~ '^0x[0-9a-f]{40}$'),
  name                text not null default '',
  description         text not null default '',
  district_id         uuid references districts (id) on delete set null deferrable initially deferred,
  tx_hash             text check (tx_hash ~ '^0x[0-9a-f]{64}$'),
  last_transferred_at timestamptz,
  updated_at          timestamptz not null default now()
);
create index estates_owner_idx on estates (owner) where owner is not null;

-- Every parcel of the grid exists (the rows are created below); data arrives by update/upsert.
create table parcels (
  x                   smallint not null check (x between -150 and 150),
  y                   smallint not null check (y between -150 and 150),
  owner               text check (owner ~ '^0x[0-9a-f]{40}$'),
  district_id         uuid references districts (id) on delete set null deferrable initially deferred,
  estate_id           text references estates (id) on delete set null deferrable initially deferred,
  data_version        integer not null default 0 check (data_version >= 0),
  name                text not null default '',
  description         text not null default '',
  ipns                text not null default '',
  auction_price       double precision check (auction_price >= 0),
  auction_owner       text check (auction_owner ~ '^0x[0-9a-f]{40}$'),
  last_transferred_at timestamptz,
  updated_at          timestamptz not null default now(),
  primary key (x, y)
);
create index parcels_owner_idx on parcels (owner, x, y) where owner is not null;
create index parcels_estate_idx on parcels (estate_id) where estate_id is not null;
create index parcels_district_idx on parcels (district_id) where district_id is not null;

insert into parcels (x, y)
select x, y from generate_series(-150, 150) as x cross join generate_series(-150, 150) as y;

create table publications (
  tx_hash               text primary key check (tx_hash ~ '^0x[0-9a-f]{64}$'),
  tx_status             text not null default 'confirmed' check (tx_status in ('pending', 'confirmed', 'failed')),
  owner                 text not null check (owner ~ '^0x[0-9a-f]{40}$'),
  price                 double precision not null check (price >= 0),
  status                text not null check (status in ('open', 'cancelled', 'sold')),
  buyer                 text check (buyer ~ '^0x[0-9a-f]{40}$'),
  contract_id           text not null,
  block_number          bigint not null check (block_number >= 0),
  expires_at            bigint not null,
  block_time_created_at bigint not null,
  block_time_updated_at bigint,
  type                  text not null check (type in ('parcel', 'estate')),
  asset_id              text not null,
  marketplace_id        text not null,
  updated_at            timestamptz not null default now(),
  check (type <> 'parcel' or asset_id ~ '^-?[0-9]{1,3},-?[0-9]{1,3}$')
);
-- Listings: the newest publication per asset in a status (DISTINCT ON asset_id).
create index publications_listing_idx on publications (type, status, asset_id, block_time_created_at desc, tx_hash desc);
-- An asset's publications, newest first.
create index publications_asset_idx on publications (type, asset_id, block_time_created_at desc);

-- The source lists some (address, district) pairs more than once (separate contributions), so rows
-- keep their own identity and their order.
create table contributions (
  id          bigint generated always as identity primary key,
  address     text not null check (address ~ '^0x[0-9a-f]{40}$'),
  district_id uuid not null references districts (id) on delete cascade deferrable initially deferred,
  land_count  integer not null check (land_count >= 0)
);
create index contributions_address_idx on contributions (address, id);

-- Every replica keeps an in-memory index of the grid; a statement-level trigger tells them to
-- rebuild it (one notification per statement, and PostgreSQL folds identical ones per transaction).
create function land_notify_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('land_changed', tg_table_name);
  return null;
end
$$;

create trigger districts_changed after insert or update or delete or truncate on districts
  for each statement execute function land_notify_changed();
create trigger estates_changed after insert or update or delete or truncate on estates
  for each statement execute function land_notify_changed();
create trigger parcels_changed after insert or update or delete or truncate on parcels
  for each statement execute function land_notify_changed();
create trigger publications_changed after insert or update or delete or truncate on publications
  for each statement execute function land_notify_changed();
create trigger contributions_changed after insert or update or delete or truncate on contributions
  for each statement execute function land_notify_changed();
