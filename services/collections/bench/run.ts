/**
 * `pnpm bench`: the collections service against a bare Fastify route, measured in the same run.
 *
 * Seeds 100,000 collections in a fresh database, then with autocannon on loopback ephemeral ports:
 *   baseline  GET /baseline                      bare Fastify, one `select 1` through the same postgres client
 *   search    GET /v1/collections?q=…             as a committee member, really signed
 *   by id     GET /v1/collections/{id}            really signed
 *   review    GET /v1/collections?is_approved=true, ?pending_review=true, GET /v1/curations (seedReviews)
 * and, to separate the signature's cost from the rest, /health/live (the kit alone) and the unsigned
 * GET /v1/addresses?q=… (same search machinery, no signature).
 * Signed-fetch refuses replays only for mutating methods, so the GET headers are signed once and reused
 * within AUTH_MAX_AGE_S. Then a microbenchmark of the signature verification alone, re-sent and fresh.
 * A list repeated with nothing written in between is answered from the service's kept answers (one version
 * read, then the bytes built for the first request): that is what these rows measure.
 */
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { migrate, verifySignedFetch } from '@genesis/common'
import { createIdentity, createTestDatabase, median, signedHeaders } from '@genesis/common/testing'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { loadConfig } from '../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { seedCollections, seedReviews } from '../test/seed.js'

// The service as `pnpm start` runs it: tsc's output (turbo builds it before `bench`), not tsx's transform of
// src, whose name-keeping wrappers run on every closure a request creates (~10 % of a by-id read's CPU).
const { buildApp } = (await import('../dist/app.js' as string)) as typeof import('../src/app.js')

const COLLECTIONS = Number(process.env.BENCH_COLLECTIONS ?? 100_000)
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const VERIFY_ROUNDS = 500

/** The ratio each row is held to; rows without one tell the signature's share apart. */
const TARGET = 0.5
const COMMON_WORD_TARGET = 0.2

const load1 = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

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
  const started = performance.now()
  await seedCollections(db.sql, COLLECTIONS)
  await seedReviews(db.sql)
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

  // Interleaved rounds, each service row right after a baseline of its own: the machine's load drifts
  // within a run, and a ratio to a baseline measured a minute earlier drifted with it.
  const rows: { name: string; url: string; headers?: Record<string, string>; target?: number }[] = [
    ...Object.entries(terms).map(([kind, term]) => ({
      name: `GET /v1/collections?q=${term} (committee)`,
      url: `${base}/v1/collections?q=${encodeURIComponent(term)}`,
      headers: listHeaders,
      target: kind === 'word' ? COMMON_WORD_TARGET : TARGET,
    })),
    {
      name: 'GET /v1/collections (committee, first page)',
      url: `${base}/v1/collections`,
      headers: listHeaders,
      target: TARGET,
    },
    // the review filters (1 % approved, 0.4 % waiting) and the committee's queue
    {
      name: 'GET /v1/collections?is_approved=true (committee)',
      url: `${base}/v1/collections?is_approved=true`,
      headers: listHeaders,
      target: TARGET,
    },
    {
      name: 'GET /v1/collections?pending_review=true (committee)',
      url: `${base}/v1/collections?pending_review=true`,
      headers: listHeaders,
      target: TARGET,
    },
    {
      name: 'GET /v1/curations (committee queue, first page)',
      url: `${base}/v1/curations`,
      headers: signedHeaders(committee, 'GET', '/v1/curations'),
      target: TARGET,
    },
    { name: 'GET /v1/collections/{id}', url: `${base}${idPath}`, headers: idHeaders, target: TARGET },
    // Without signed fetch, to tell the signature's share from the rest of the stack:
    { name: 'GET /health/live (service kit, no database)', url: `${base}/health/live` },
    {
      name: `GET /v1/addresses?q=${terms.fragment} (unsigned search)`,
      url: `${base}/v1/addresses?q=${encodeURIComponent(terms.fragment)}`,
    },
  ]
  const ratios = new Map<string, number[]>(rows.map((row) => [row.name, []]))
  const rates = new Map<string, number[]>([
    ['baseline', []],
    ...rows.map((row) => [row.name, []] as [string, number[]]),
  ])
  const loadBefore = load1()
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round} of ${ROUNDS} (load average ${load1()})`)
    for (const row of rows) {
      const reference = await load('  baseline: bare Fastify + select 1', `${baselineUrl}/baseline`)
      const measured = await load(`  ${row.name}`, row.url, row.headers)
      rates.get('baseline')!.push(reference.rps)
      rates.get(row.name)!.push(measured.rps)
      ratios.get(row.name)!.push(measured.rps / reference.rps)
    }
  }

  // The verification alone: the headers the load re-sent (remembered after their first verification), and
  // requests signed afresh by the same session (each one's own signature recovered).
  const verifyOptions = { maxAgeS: config.AUTH_MAX_AGE_S }
  const perRequestMs = async (
    requests: { method: string; path: string; headers: Record<string, string> }[],
  ) => {
    const start = performance.now()
    for (const request of requests) await verifySignedFetch(request, verifyOptions)
    return (performance.now() - start) / requests.length
  }
  const resent = Array.from({ length: VERIFY_ROUNDS }, () => ({
    method: 'GET',
    path: idPath,
    headers: idHeaders,
  }))
  const now = Date.now()
  const fresh = Array.from({ length: VERIFY_ROUNDS }, (_, i) => ({
    method: 'GET',
    path: idPath,
    headers: signedHeaders(committee, 'GET', idPath, { timestamp: now + i }),
  }))
  await perRequestMs(resent.slice(0, 20))
  const resentMs = await perRequestMs(resent)
  const freshMs = await perRequestMs(fresh)

  const loadAfter = load1()
  // the bench's own process holds the service (and the load generator and the baseline)
  const rssMb = process.memoryUsage().rss / 2 ** 20
  console.log('\nratio to the baseline measured just before it: median [min–max], against its target')
  for (const row of rows) {
    const values = ratios.get(row.name)!
    const met = row.target === undefined ? '' : median(values) >= row.target ? ' met' : ' NOT MET'
    console.log(
      `  ${row.name.padEnd(62)} ${median(values).toFixed(2)} [${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}]` +
        `${row.target === undefined ? ''.padEnd(16) : `   target ≥ ${row.target.toFixed(1)}`}${met.padEnd(8)}` +
        `   ${Math.round(median(rates.get(row.name)!))} req/s`,
    )
  }
  console.log(`  baseline ${Math.round(median(rates.get('baseline')!))} req/s (median)`)
  console.log(
    `load average (1, 5, 15 min) before the rounds ${loadBefore}, after ${loadAfter}; ` +
      `RSS of the bench process (service, baseline and autocannon) after the run ${rssMb.toFixed(0)} MB`,
  )
  console.log(
    '\nsignature verification alone (verifySignedFetch, 3-link auth chain), ms per request:\n' +
      `  the load's headers, re-sent (remembered)   ${resentMs.toFixed(3)}\n` +
      `  each request signed afresh (one recovery)  ${freshMs.toFixed(3)} = at most ${(1000 / freshMs).toFixed(0)} verifications/s on one core`,
  )
  console.log(
    JSON.stringify({
      collections: COLLECTIONS,
      durationS: DURATION_S,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      medianRatios: Object.fromEntries(
        [...ratios].map(([name, values]) => [name, Number(median(values).toFixed(3))]),
      ),
      medianRates: Object.fromEntries([...rates].map(([name, values]) => [name, Math.round(median(values))])),
      verifyMs: { resent: Number(resentMs.toFixed(3)), fresh: Number(freshMs.toFixed(3)) },
      load: { before: loadBefore, after: loadAfter },
      rssMb: Math.round(rssMb),
    }),
  )
  await app.close()
  await baseline.close()
} finally {
  await db.drop()
}
