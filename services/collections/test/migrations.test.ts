import { migrate } from '@genesis/common'
import { createTestDatabase, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { pageQuery } from '../src/db/collections.js'
import { migrationsDir } from '../src/paths.js'
import { seedCollections } from './seed.js'

let db: TestDatabase
beforeAll(async () => {
  db = await createTestDatabase()
  await migrate(db.sql, migrationsDir)
})
afterAll(() => db.drop())

it('applies the migrations once, and again without harm', async () => {
  await migrate(db.sql, migrationsDir)
  const tables = await db.sql<{ table_name: string }[]>`
    select table_name from information_schema.tables where table_schema = 'public' order by table_name`
  expect(tables.map((t) => t.table_name)).toEqual(
    expect.arrayContaining([
      'collections',
      'items',
      'slot_usage_cheques',
      'third_parties',
      'tos_acceptances',
    ]),
  )
})

it('indexes name search with pg_trgm, so q stays fast on many collections', async () => {
  const [ext] = await db.sql`select extname from pg_extension where extname = 'pg_trgm'`
  expect(ext).toBeDefined()
  await seedCollections(db.sql, 2_000)
  // On a small table the planner rightly prefers scanning; forbidding that shows the index serves the
  // search. (bench/run.ts seeds 100,000 rows, where the planner picks the index by itself.)
  const plan = await db.sql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`
    await tx`set local enable_indexscan = off`
    return tx.unsafe(
      "explain select c.id from collections c where lower(c.name) like '%samurai outfit%' order by c.created_at desc limit 20",
    )
  })
  const text = plan.map((row) => Object.values(row)[0]).join('\n')
  expect(text).toContain('Bitmap Index Scan on collections_name_trgm')
})

it('searches through the trigram index with the generic plan the service runs, never walking created_at', async () => {
  const query = pageQuery({ q: 'Samurai', isPublished: true }, { limit: 20, offset: 0 })
  const plan = await db.sql.begin(async (tx) => {
    await tx`set local plan_cache_mode = force_generic_plan`
    await tx`set local enable_seqscan = off`
    await tx.unsafe(`prepare search as ${query.text}`)
    const rows = await tx.unsafe(`explain execute search('%samurai%', 20, 0)`)
    await tx`deallocate search`
    return rows
  })
  const text = plan.map((row) => Object.values(row)[0]).join('\n')
  expect(text).toContain('Bitmap Index Scan on collections_name_trgm')
  expect(text).not.toMatch(/Index Scan (Backward )?using collections_(published_)?created_at/)
  expect(query.params).toEqual(['%samurai%', 20, 0])
})

it('keeps standard names unique ignoring case and blanks, in the database itself', async () => {
  const insert = (name: string, n: number) => db.sql`
    insert into collections (id, name, eth_address, salt, contract_address, urn)
    values (gen_random_uuid(), ${name}, ${`0x${'0'.repeat(39)}1`}, '0x', ${`0x${String(n).padStart(40, '0')}`},
            ${`urn:decentraland:sepolia:collections-v2:${n}`})`
  await insert('Unique Name', 1)
  await expect(insert('UNIQUE name', 2)).rejects.toMatchObject({
    code: '23505',
    constraint_name: 'collections_standard_name_key',
  })
})
