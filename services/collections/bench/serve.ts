/**
 * The bench's service alone, for a profiler: `node --cpu-prof --import tsx bench/serve.ts <out.json>` seeds
 * a fresh database like bench/run.ts, starts the built service (dist/) on a loopback port and writes
 * { base, listHeaders, curationHeaders, terms } to <out.json> for a load generator in another process
 * (autocannon's CLI). SIGINT closes it, drops the database and lets --cpu-prof write its profile.
 */
import { writeFileSync } from 'node:fs'
import { migrate } from '@genesis/common'
import { createIdentity, createTestDatabase, signedHeaders } from '@genesis/common/testing'
import { loadConfig } from '../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { seedCollections, seedReviews } from '../test/seed.js'

const { buildApp } = (await import('../dist/app.js' as string)) as typeof import('../src/app.js')

const out = process.argv[2]
if (!out) throw new Error('usage: serve.ts <out.json>')
const db = await createTestDatabase({ settings: COLLECTIONS_DB_SETTINGS })
await migrate(db.sql, migrationsDir)
await seedCollections(db.sql, Number(process.env.BENCH_COLLECTIONS ?? 100_000))
await seedReviews(db.sql)
const committee = await createIdentity()
const config = loadConfig({ COMMITTEE_ADDRESSES: committee.address, RATE_LIMIT_MAX: '0' })
const app = await buildApp({ sql: db.sql, config })
const base = await app.listen({ port: 0, host: '127.0.0.1' })
const [row] = await db.sql<{ name: string }[]>`
  select name from collections where is_published order by created_at desc offset 4242 limit 1`
const name = row!.name.toLowerCase()
writeFileSync(
  out,
  JSON.stringify({
    base,
    database: db.url,
    listHeaders: signedHeaders(committee, 'GET', '/v1/collections'),
    curationHeaders: signedHeaders(committee, 'GET', '/v1/curations'),
    terms: { word: name.split(' ')[1], fragment: name.split(' ').slice(2).join(' ') },
  }),
)
console.log(`serving ${base}`)
process.once('SIGINT', async () => {
  await app.close()
  await db.drop()
  process.exit(0)
})
