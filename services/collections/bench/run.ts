/**
 * `pnpm bench`: the collections service against a bare Fastify route, measured in the same run.
 *
 * Seeds 100,000 collections in a fresh database, then with autocannon on loopback ephemeral ports:
 *   baseline  GET /baseline                      bare Fastify, one `select 1` through the same postgres client
 *   search    GET /v1/collections?q=…             as a committee member, really signed
 *   by id     GET /v1/collections/{id}            really signed
 * and, to separate the signature's cost from the rest, /health/live (the kit alone) and the unsigned
 * GET /v1/addresses?q=… (same search machinery, no signature).
 * Signed-fetch refuses replays only for mutating methods, so the GET headers are signed once and reused
 * within AUTH_MAX_AGE_S. Then a microbenchmark of the signature verification alone.
 */
import { performance } from 'node:perf_hooks'
import { migrate, verifySignedFetch } from '@genesis/common'
import { createIdentity, createTestDatabase, signedHeaders } from '@genesis/common/testing'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { seedCollections } from '../test/seed.js'

const COLLECTIONS = Number(process.env.BENCH_COLLECTIONS ?? 100_000)
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const VERIFY_ROUNDS = 500

interface Measure {
  name: string
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
}

async function load(name: string, url: string, headers: Record<string, string> = {}): Promise<Measure> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers })
  const measure = {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  }
  console.log(
    `${name.padEnd(44)} ${measure.rps.toFixed(0).padStart(7)} req/s   p50 ${measure.p50} ms   p99 ${measure.p99} ms` +
      `   non-2xx ${measure.non2xx}   errors ${measure.errors}`,
  )
  return measure
}

const db = await createTestDatabase({ settings: COLLECTIONS_DB_SETTINGS })
try {
  await migrate(db.sql, migrationsDir)
  let started = performance.now()
  await seedCollections(db.sql, COLLECTIONS)
  console.log(`seeded ${COLLECTIONS} collections in ${((performance.now() - started) / 1000).toFixed(1)} s`)

  const committee = await createIdentity()
  const config = loadConfig({ COMMITTEE_ADDRESSES: committee.address, RATE_LIMIT_MAX: '0' })
  const app = await buildApp({ sql: db.sql, config })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })

  const baseline = Fastify()
  baseline.get('/baseline', async () => {
    await db.sql`select 1`
    return { ok: true, data: 1 }
  })
  const baselineUrl = await baseline.listen({ port: 0, host: '127.0.0.1' })

  const [row] = await db.sql<{ id: string; name: string }[]>`
    select id, name from collections where is_published order by created_at desc offset 4242 limit 1`
  // What a committee member types: a distinctive part of a name (its last two words, "threads 5303"),
  // a whole name, or one word, which matches a few percent of the seeded collections: every page is then
  // full and the total needs every match counted.
  const name = row!.name.toLowerCase()
  const terms = { word: name.split(' ')[1]!, name, fragment: name.split(' ').slice(2).join(' ') }
  for (const [kind, term] of Object.entries(terms)) {
    const [found] = await db.sql<{ matches: number }[]>`
      select count(*)::int as matches from collections where lower(name) like ${`%${term}%`}`
    console.log(`search ${kind} "${term}" matches ${found?.matches} collections`)
  }

  // warm-up (JIT, connection pool, plans)
  await load('warm-up', `${baselineUrl}/baseline`)

  const listHeaders = signedHeaders(committee, 'GET', '/v1/collections')
  const idPath = `/v1/collections/${row!.id}`
  const idHeaders = signedHeaders(committee, 'GET', idPath)
  const sanity = await fetch(`${base}/v1/collections?q=${encodeURIComponent(terms.word)}`, {
    headers: listHeaders,
  })
  if (sanity.status !== 200) throw new Error(`search answered ${sanity.status}: ${await sanity.text()}`)

  const baselineBefore = await load('baseline: bare Fastify + select 1', `${baselineUrl}/baseline`)
  const search = (term: string) =>
    load(
      `GET /v1/collections?q=${term} (committee)`,
      `${base}/v1/collections?q=${encodeURIComponent(term)}`,
      listHeaders,
    )
  const searchFragment = await search(terms.fragment)
  const searchName = await search(terms.name)
  const searchWord = await search(terms.word)
  const byId = await load('GET /v1/collections/{id}', `${base}${idPath}`, idHeaders)
  // Without signed fetch, to tell the signature's share from the rest of the stack:
  const kitOnly = await load('GET /health/live (service kit, no database)', `${base}/health/live`)
  const unsigned = await load(
    `GET /v1/addresses?q=${terms.fragment} (unsigned search)`,
    `${base}/v1/addresses?q=${encodeURIComponent(terms.fragment)}`,
  )
  const baselineAfter = await load('baseline again', `${baselineUrl}/baseline`)
  const baselineRps = (baselineBefore.rps + baselineAfter.rps) / 2

  // The verification alone, on the same headers the load used.
  const request = { method: 'GET', path: idPath, headers: idHeaders }
  for (let i = 0; i < 20; i++) await verifySignedFetch(request, { maxAgeS: config.AUTH_MAX_AGE_S })
  started = performance.now()
  for (let i = 0; i < VERIFY_ROUNDS; i++) await verifySignedFetch(request, { maxAgeS: config.AUTH_MAX_AGE_S })
  const verifyMs = (performance.now() - started) / VERIFY_ROUNDS

  console.log('\nratio to the baseline (target ≥ 0.5):')
  for (const m of [searchFragment, searchName, searchWord, byId])
    console.log(`  ${m.name.padEnd(44)} ${(m.rps / baselineRps).toFixed(2)}`)
  console.log(
    `\nsignature verification (verifySignedFetch, 3-link auth chain): ${verifyMs.toFixed(3)} ms per request ` +
      `= at most ${(1000 / verifyMs).toFixed(0)} verifications/s on one core`,
  )
  console.log(
    JSON.stringify({
      collections: COLLECTIONS,
      durationS: DURATION_S,
      connections: CONNECTIONS,
      baselineRps: Math.round(baselineRps),
      searchFragment: Math.round(searchFragment.rps),
      searchName: Math.round(searchName.rps),
      searchWord: Math.round(searchWord.rps),
      byId: Math.round(byId.rps),
      kitOnly: Math.round(kitOnly.rps),
      unsignedSearch: Math.round(unsigned.rps),
      verifyMs: Number(verifyMs.toFixed(3)),
    }),
  )
  await app.close()
  await baseline.close()
} finally {
  await db.drop()
}
