-- Which chain the indexed data comes from, recorded before the first batch and checked whenever the indexer
-- takes over: a database never mixes two chains' data (a development node started afresh, another network,
-- contracts deployed again). Forgotten with the indexing.
create table land_chain_identity (
  id           boolean primary key default true check (id),
  chain_id     text not null,
  genesis_hash text not null check (genesis_hash ~ '^0x[0-9a-f]{64}$'),
  land         text not null,
  estates      text not null,
  marketplace  text not null,
  recorded_at  timestamptz not null default now()
);
