import type { Sql } from '@genesis/common'

/**
 * Seeds `count` standard collections in one INSERT … SELECT generate_series. Names are unique
 * ("Wearables <n> <hex>"), four in five are published, owners rotate over 5,000 addresses, and
 * salt/contract address are hex derived from md5 (shaped like the real ones, not real CREATE2 values).
 *
 * A bulk load: the secondary indexes are dropped and rebuilt from their own definitions (pg_indexes),
 * which is several times faster than maintaining the GIN indexes row by row.
 */
export async function seedCollections(sql: Sql, count: number, network = 'sepolia'): Promise<void> {
  await sql.begin(async (tx) => {
    const indexes = await tx<{ indexname: string; indexdef: string }[]>`
      select indexname, indexdef from pg_indexes
      where schemaname = current_schema() and tablename = 'collections' and indexname <> 'collections_pkey'`
    for (const index of indexes) await tx`drop index ${tx(index.indexname)}`
    await tx`
      insert into collections (id, name, eth_address, salt, contract_address, urn, is_published, created_at, updated_at)
      select gen_random_uuid(),
             'Wearables ' || n || ' ' || substr(md5(n::text), 1, 12),
             '0x' || lpad(to_hex(n % 5000), 40, '0'),
             '0x' || md5(n::text) || md5((n + 1)::text),
             contract,
             'urn:decentraland:' || ${network} || ':collections-v2:' || contract,
             n % 5 <> 0,
             now() - n * interval '1 second',
             now() - n * interval '1 second'
      from generate_series(1, ${count}::int) as n,
           lateral (select '0x' || substr(md5('contract' || n), 1, 32) || substr(md5('c' || n), 1, 8) as contract) as c`
    for (const index of indexes) await tx.unsafe(index.indexdef)
  })
  await sql`analyze collections`
}
