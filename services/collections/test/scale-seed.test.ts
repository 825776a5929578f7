import { migrate } from '@genesis/common'
import { createTestDatabase, requireRealPostgres, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { seedCatalogue } from '../bench/scale/seed.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { keptAndCounted } from './counts.js'

// The scale bench's seed (bench/scale/seed.ts) at a tiny volume: collections, their review state, their
// items and the name suffixes the triggers keep, as the service would have them.
let db: TestDatabase
beforeAll(async () => {
  db = await createTestDatabase({ settings: COLLECTIONS_DB_SETTINGS })
  await migrate(db.sql, migrationsDir)
})
afterAll(async () => db?.drop())

it('makes a consistent catalogue', async (ctx) => {
  requireRealPostgres(ctx, db)
  await seedCatalogue(db.sql, { collections: 300, items: 3_000 })
  const [shape] = await db.sql<Record<string, number>[]>`
    select (select count(*)::int from collections) as collections,
           (select count(*)::int from items) as items,
           (select count(*)::int from collections c where (select count(*) from items i where i.collection_id = c.id) <> 10) as uneven,
           (select count(*)::int from collections c where (select count(*) from collection_name_suffixes s
              where s.collection_id = c.id) <> char_length(c.name)) as unsuffixed`
  expect(shape).toEqual({ collections: 300, items: 3_000, uneven: 0, unsuffixed: 0 })
  const { kept, counted } = await keptAndCounted(db.sql)
  expect(kept).toEqual(counted)
})
