/**
 * `pnpm --filter @genesis/collections bench:scale` (or `pnpm bench:scale` from the root): the collections
 * service on an almost empty database and on one at production volume, in the same run (BENCHMARKS.md,
 * "Scale"). The lists are measured "not cached": the service process keeps and shares no answer, so every
 * request builds its own, as the first request after a write does.
 *
 * Options (`--name=value`, or the environment variable BENCH_<NAME>):
 *   --small                  a tenth of the production volume
 *   --collections, --items   the full database's volume (100,000 and 1,000,000)
 *   --duration=<s> (5), --rounds=<n> (3), --connections=<n> (20)
 *   --server=<url>           an existing PostgreSQL (default: a private cluster with pg_stat_statements)
 *   --reuse                  keep the databases and reuse them on the next run (with --server)
 *   --only=<text>            only the rows whose name contains it
 */
import { fileURLToPath } from 'node:url'
import { createIdentity, signedHeaders } from '@genesis/common/testing'
import {
  type BenchDatabase,
  type BenchRequest,
  explainPlans,
  type HttpRow,
  loadAverage,
  log,
  machine,
  numberOption,
  openScaleServer,
  openSides,
  option,
  type Plan,
  printSummary,
  runHttpRows,
  type ScaleSides,
  volumeDivisor,
} from '../../../packages/common/bench/scale.js'
import { listQuery } from '../src/db/collections.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { encodeCursor } from '../src/domain/cursor.js'
import { migrationsDir } from '../src/paths.js'
import { type CollectionsVolume, seedCatalogue } from './scale/seed.js'

const tenth = volumeDivisor()
const FULL: CollectionsVolume = {
  collections: numberOption('collections', 100_000 / tenth),
  items: numberOption('items', 1_000_000 / tenth),
}
const EMPTY: CollectionsVolume = { collections: 1_000, items: 10_000 }
const ROUNDS = numberOption('rounds', 3)
const DURATION_S = numberOption('duration', 5)
const CONNECTIONS = numberOption('connections', 20)
const only = option('only')
const reuse = option('reuse') === 'true'
/** The common word: a theme of the seeded names (test/seed.ts), in one name in 23. */
const COMMON_WORD = 'racer'

interface Picks {
  /** A published collection a tenth of the way down the newest: its id, and its last two words. */
  id: string
  fragment: string
  /** The cursor of the page that starts 90 % of the way down the committee's list. */
  deep: string
}

async function picks(db: BenchDatabase): Promise<Picks> {
  const [count] = await db.sql<{ n: number; all: number }[]>`
    select count(*) filter (where is_published)::int as n, count(*)::int as all from collections`
  const [row] = await db.sql<{ id: string; name: string }[]>`
    select id, name from collections where is_published order by created_at desc
    offset ${Math.floor(count!.n / 10)} limit 1`
  const depth = Math.floor(count!.all * 0.9)
  const [deep] = await db.sql<{ id: string; at: string }[]>`
    select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from collections
    order by created_at desc, id offset ${depth - 1} limit 1`
  return {
    id: row!.id,
    fragment: row!.name.toLowerCase().split(' ').slice(2).join(' '),
    deep: encodeCursor({ after: { createdAt: deep!.at, id: deep!.id }, page: Math.floor(depth / 20) + 1 }),
  }
}

async function main() {
  log(`collections scale bench: ${machine()}`)
  const server = await openScaleServer()
  log(`server: ${server.describe}`)
  const committee = await createIdentity()
  let sides: ScaleSides | undefined
  try {
    sides = await openSides(server, {
      databases: {
        empty: { name: 'collections_scale_empty', volume: EMPTY },
        full: { name: `collections_scale_full_${FULL.collections}_${FULL.items}`, volume: FULL },
      },
      settings: COLLECTIONS_DB_SETTINGS,
      reuse,
      migrationsDir,
      seed: (db, volume) => seedCatalogue(db.sql, volume),
      serve: {
        script: fileURLToPath(new URL('./scale/serve.ts', import.meta.url)),
        env: { COMMITTEE_ADDRESSES: committee.address, BENCH_UNCACHED: '1' },
      },
    })
    const empty = sides.empty.db
    const full = sides.full.db
    const picked = { empty: await picks(empty), full: await picks(full) }
    const listHeaders = signedHeaders(committee, 'GET', '/v1/collections')
    const publicHeaders = signedHeaders(await createIdentity(), 'GET', '/v1/collections')
    const list = (query: string): BenchRequest => ({
      method: 'GET',
      path: `/v1/collections${query}`,
      headers: listHeaders,
    })
    const same = (request: BenchRequest) => () => request
    const target = { ratio: 0.95, p99: 1.2 }

    const allRows: HttpRow[] = [
      {
        name: `GET /v1/collections?q=${COMMON_WORD} (a common word, committee, not cached)`,
        target: { ratio: 0.5, p99: 2 },
        requests: () => same(list(`?q=${COMMON_WORD}`)),
      },
      {
        name: `GET /v1/collections?q=${COMMON_WORD} (anybody: published ones, not cached)`,
        target: { ratio: 0.5, p99: 2 },
        requests: () =>
          same({ method: 'GET', path: `/v1/collections?q=${COMMON_WORD}`, headers: publicHeaders }),
      },
      {
        name: 'GET /v1/collections?q=<the last two words of a name> (committee, not cached)',
        target,
        requests: (db) => same(list(`?q=${encodeURIComponent(picked[db.label].fragment)}`)),
      },
      {
        name: 'GET /v1/collections?page=1..50 (committee, not cached)',
        target,
        requests: () => {
          let page = 0
          return () => list(`?page=${(page++ % 50) + 1}`)
        },
      },
      {
        name: 'GET /v1/collections?cursor=<a page 90 % down the list> (committee, not cached)',
        target,
        requests: (db) => same(list(`?cursor=${picked[db.label].deep}`)),
      },
      {
        // a full page on both databases (8 approved collections on the empty one)
        name: 'GET /v1/collections?is_approved=true&limit=5 (committee, not cached)',
        target,
        requests: () => same(list('?is_approved=true&limit=5')),
      },
      {
        // a full page on both databases (4 pending reviews on the empty one)
        name: 'GET /v1/curations?limit=3 (the committee queue, not cached)',
        target,
        requests: () =>
          same({
            method: 'GET',
            path: '/v1/curations?limit=3',
            headers: signedHeaders(committee, 'GET', '/v1/curations'),
          }),
      },
      {
        name: 'GET /v1/collections/:id',
        target,
        requests: (db) => {
          const path = `/v1/collections/${picked[db.label].id}`
          return same({ method: 'GET', path, headers: signedHeaders(committee, 'GET', path) })
        },
      },
      {
        name: 'GET /v1/collections/:id/items (10 items)',
        target,
        requests: (db) => {
          const path = `/v1/collections/${picked[db.label].id}/items`
          return same({ method: 'GET', path, headers: signedHeaders(committee, 'GET', path) })
        },
      },
    ]
    const rows = allRows.filter((row) => only === undefined || row.name.includes(only))
    const settings = {
      durationS: DURATION_S,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      statements: server.statements,
    }
    const loadBefore = loadAverage()
    const results = await runHttpRows(rows, sides, settings)
    printSummary(results, [
      `collections, ${machine()}; load average ${loadBefore} before the rows, ${loadAverage()} after.`,
      `Empty: ${JSON.stringify(EMPTY)}; full: ${JSON.stringify(FULL)}; ${server.describe}.`,
      `${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections; ratio = full / empty, median of the rounds; lists not cached.`,
    ])

    const search = listQuery({ q: COMMON_WORD }, { limit: 20, offset: 0 })
    const deep = listQuery({}, { limit: 20, offset: 980 })
    const plans: Plan[] = [
      {
        name: `the common-word search (q=${COMMON_WORD})`,
        text: search.text,
        args: [`'${COMMON_WORD}'`, '20', '0'],
      },
      { name: 'page 50 of the unfiltered list', text: deep.text, args: ['20', '980'] },
      {
        name: "a collection's items",
        text: `select id, name from items where collection_id = $1 order by items.created_at, seq`,
        args: [`'${picked.full.id}'`],
      },
    ]
    await explainPlans(full, COLLECTIONS_DB_SETTINGS, plans)
  } finally {
    await sides?.close()
    await server.close()
  }
}

await main()
