/**
 * A collections database at a chosen volume for the scale bench: `collections` standard collections named
 * like creators' (test/seed.ts: a style, a theme, a kind and a number; owners over 5,000 addresses), their
 * review state (test/seed.ts seedReviews), and `items` items spread over them (each collection's items
 * made at different times, so they lie apart in the table as on a live catalogue).
 */
import type { Sql } from '@genesis/common'
import { seedCollections, seedReviews } from '../../test/seed.js'

export interface CollectionsVolume {
  collections: number
  items: number
}

export async function seedCatalogue(sql: Sql, volume: CollectionsVolume): Promise<void> {
  await seedCollections(sql, volume.collections)
  await seedReviews(sql)
  const perCollection = Math.max(1, Math.round(volume.items / volume.collections))
  await sql.begin(async (tx) => {
    await tx`set local synchronous_commit = off`
    await tx`set local maintenance_work_mem = '256MB'`
    const indexes = await tx<{ indexname: string; indexdef: string }[]>`
      select indexname, indexdef from pg_indexes
      where schemaname = current_schema() and tablename = 'items' and indexname <> 'items_pkey'`
    for (const index of indexes) await tx`drop index ${tx(index.indexname)}`
    // round k adds the k-th item of every collection: a collection's items lie `collections` rows apart
    await tx`
      insert into items (id, collection_id, name, type, content_hash, created_at, updated_at)
      select gen_random_uuid(), c.id, 'Item ' || k || ' of ' || left(c.name, 30),
        case when k % 5 = 0 then 'emote' else 'wearable' end,
        'bafkrei' || md5(c.id::text || k) || left(md5(k || c.id::text), 20),
        c.created_at + k * interval '1 minute', c.created_at + k * interval '1 minute'
      from generate_series(1, ${perCollection}::int) as k, collections c
      order by k, c.created_at`
    for (const index of indexes) await tx.unsafe(index.indexdef)
  })
  await sql`vacuum analyze collections, items, curations`
}
