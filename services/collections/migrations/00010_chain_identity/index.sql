-- The chain RPC_URL served when the service last started: its genesis block's hash. A node whose genesis
-- differs serves another chain (a development node started afresh): said at start, refused in production.
create table chain_identity (
  chain_id text primary key,
  genesis_hash text not null check (genesis_hash ~ '^0x[0-9a-f]{64}$'),
  recorded_at timestamptz not null default now()
);
