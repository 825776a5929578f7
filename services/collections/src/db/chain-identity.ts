import type { ChainIdentity, Queryable } from '@genesis/common'

/** The chain RPC_URL served at the last start, if any. */
export async function rememberedChain(sql: Queryable): Promise<ChainIdentity | null> {
  const [row] = await sql<{ chain_id: string; genesis_hash: string }[]>`
    select chain_id, genesis_hash from chain_identity order by recorded_at desc limit 1`
  return row ? { chainId: row.chain_id, genesisHash: row.genesis_hash } : null
}

/** The chain RPC_URL serves from now on: the only one remembered. */
export async function rememberChain(sql: Queryable, chain: ChainIdentity): Promise<void> {
  await sql`delete from chain_identity where chain_id <> ${chain.chainId} or genesis_hash <> ${chain.genesisHash}`
  await sql`
    insert into chain_identity (chain_id, genesis_hash) values (${chain.chainId}, ${chain.genesisHash})
    on conflict (chain_id) do nothing`
}
