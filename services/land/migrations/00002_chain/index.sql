-- Following the chain: where the indexer is, the hashes of the recent blocks it indexed (to detect a
-- reorganisation), an undo log of the rows it changed in those blocks (to roll one back), and which
-- publication each marketplace order became.

-- One row: the last indexed block. synced_at is when the indexer last saw nothing newer on the chain.
create table land_chain_cursor (
  id           boolean primary key default true check (id),
  block_number bigint not null check (block_number >= 0),
  block_hash   text not null check (block_hash ~ '^0x[0-9a-f]{64}$'),
  block_time   timestamptz not null,
  synced_at    timestamptz not null default now(),
  updated_at   timestamptz not null default now()
);

-- Hashes of indexed blocks that had events, and of each batch's last block, kept while a reorganisation
-- may still undo them (plus the newest one below that window, the anchor).
create table land_chain_blocks (
  number bigint primary key check (number >= 0),
  hash   text not null check (hash ~ '^0x[0-9a-f]{64}$'),
  time   timestamptz not null,
  -- false when the batch was written without undo images (older than LAND_CONFIRMATIONS then)
  undoable boolean not null
);

-- The image of a row before the first change the indexer made to it in a block (null: it did not exist).
-- Rolled back newest first; pruned with the blocks.
create table land_chain_undo (
  id           bigint generated always as identity primary key,
  block_number bigint not null,
  tbl          text not null check (tbl in ('parcels', 'estates', 'publications', 'land_chain_orders')),
  key          jsonb not null,
  before       jsonb,
  unique (block_number, tbl, key)
);

-- A marketplace order id (bytes32) → the publication (tx_hash) its OrderCreated made.
create table land_chain_orders (
  order_id  text primary key check (order_id ~ '^0x[0-9a-f]{64}$'),
  tx_hash   text not null check (tx_hash ~ '^0x[0-9a-f]{64}$'),
  type      text not null check (type in ('parcel', 'estate')),
  asset_id  text not null
);
create index land_chain_orders_asset_idx on land_chain_orders (type, asset_id);
