import type { Sql } from '@genesis/common'

const STYLES = [
  'Neon',
  'Golden',
  'Cyber',
  'Retro',
  'Mystic',
  'Urban',
  'Pixel',
  'Royal',
  'Frozen',
  'Solar',
  'Shadow',
  'Crystal',
  'Wild',
  'Velvet',
  'Cosmic',
  'Rusty',
  'Lunar',
  'Electric',
  'Ancient',
  'Tropical',
  'Arctic',
  'Vintage',
  'Glitch',
  'Emerald',
]
const THEMES = [
  'Samurai',
  'Pirate',
  'Astronaut',
  'Dragon',
  'Wizard',
  'Skater',
  'Knight',
  'Ninja',
  'Robot',
  'Mermaid',
  'Cowboy',
  'Vampire',
  'Phoenix',
  'Racer',
  'Gardener',
  'Viking',
  'Jester',
  'Alien',
  'Pharaoh',
  'Surfer',
  'Rockstar',
  'Detective',
  'Monk',
]
const KINDS = [
  'Set',
  'Outfit',
  'Drop',
  'Pack',
  'Gear',
  'Series',
  'Edition',
  'Wardrobe',
  'Capsule',
  'Moves',
  'Dances',
  'Looks',
  'Threads',
]

/**
 * Seeds `count` standard collections in one INSERT … SELECT generate_series. Names read like creators'
 * ("Neon Samurai Outfit 4242": a style, a theme, a kind and a number that keeps them unique), so a word
 * of the name matches a few percent of the collections, as on a real catalogue. Four in five are
 * published, owners rotate over 5,000 addresses, and salt/contract address are hex derived from md5
 * (shaped like the real ones, not real CREATE2 values).
 *
 * A bulk load: the secondary indexes are dropped and rebuilt from their own definitions (pg_indexes),
 * which is several times faster than maintaining the GIN indexes row by row.
 */
export async function seedCollections(sql: Sql, count: number, network = 'sepolia'): Promise<void> {
  await sql.begin(async (tx) => {
    // the name suffixes too (migration 00007), which a trigger writes for the inserted collections
    const indexes = await tx<{ indexname: string; indexdef: string }[]>`
      select i.indexname, i.indexdef from pg_indexes i
      where i.schemaname = current_schema() and i.tablename in ('collections', 'collection_name_suffixes')
        and not exists (select from pg_constraint c where c.conname = i.indexname)`
    for (const index of indexes) await tx`drop index ${tx(index.indexname)}`
    await tx`
      insert into collections (id, name, eth_address, salt, contract_address, urn, is_published, created_at, updated_at)
      select gen_random_uuid(),
             (${tx.array(STYLES)}::text[])[1 + n % ${STYLES.length}] || ' ' || (${tx.array(THEMES)}::text[])[1 + n % ${THEMES.length}]
               || ' ' || (${tx.array(KINDS)}::text[])[1 + n % ${KINDS.length}] || ' ' || n,
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
  // absent from a database migrated only part of the way (a migration's test)
  const [suffixes] = await sql<
    { table: string | null }[]
  >`select to_regclass('collection_name_suffixes')::text as table`
  if (suffixes?.table) await sql`analyze collection_name_suffixes`
}

/**
 * The review state of a seeded catalogue: one published collection in 100 approved (and reviewed a day
 * after its creation, with a rejected and an approved curation record), one in 250 waiting for review
 * with a pending curation record. Few of each, as
 * on a real catalogue, so the review filters' partial indexes are what a page walks.
 */
export async function seedReviews(sql: Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      with numbered as (select id, row_number() over (order by created_at desc, id) as n from collections
                        where is_published and third_party_id is null)
      update collections c set is_approved = true, reviewed_at = c.created_at + interval '1 day'
      from numbered where numbered.id = c.id and numbered.n % 100 = 0`
    await tx`
      with numbered as (select id, created_at, row_number() over (order by created_at desc, id) as n
                        from collections where is_published and not is_approved)
      insert into curations (id, collection_id, kind, requested_by, created_at, updated_at)
      select gen_random_uuid(), id, 'collection', ${`0x${'5'.repeat(40)}`}, created_at + interval '1 hour',
             created_at + interval '1 hour'
      from numbered where n % 250 = 0`
    // the decided reviews behind them, and as many rejected ones: the queue is a small part of the table
    await tx`
      insert into curations (id, collection_id, kind, status, requested_by, reviewed_by, created_at, reviewed_at, updated_at)
      select gen_random_uuid(), id, 'collection', s.status, ${`0x${'5'.repeat(40)}`}, ${`0x${'6'.repeat(40)}`},
             created_at + interval '1 hour', created_at + interval '1 day', created_at + interval '1 day'
      from collections, (values ('approved'), ('rejected')) as s (status)
      where is_approved`
    await tx`
      update collections set pending_review = true
      where id in (select collection_id from curations where status = 'pending')`
  })
  await sql`analyze collections`
  await sql`analyze curations`
}
