/**
 * This code's land service against another build of it (an older commit, checked out and built), both
 * serving the same database, on every read the benchmarks measure: requests/s and the server's CPU per
 * request for the cached reads, milliseconds per request for the uncached ones (images drawn, rectangles
 * built). The two servers run on the same core and take turns, round by round, the order alternating, so
 * that load from anything else on the machine falls on both alike; a ratio is taken within a round, and
 * the figure is the median of the rounds' ratios.
 *
 * Both services are started anew for it, on the same database. In bench/run.ts:
 * `LAND_BENCH_BASELINE=<checkout, built> pnpm --filter @genesis/land bench`. Alone:
 * `node --import tsx bench/against.ts <checkout, built>` (from services/land) seeds a throw-away database
 * and prints the table (BENCH_ROUNDS: rounds of the cached reads; BENCH_ONLY: a pattern of the rows'
 * labels to run alone).
 */
import { type ChildProcess, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { GRID_MAX, GRID_MIN } from '../src/domain/geometry.js'
import { packageRoot } from '../src/paths.js'
import { freePort, type LoadOptions, load, median, NODE_FLAGS, type Run, start, waitFor } from './harness.js'

/** This code may be this much slower than the other build before a row fails. */
export const SLOWER_BY_AT_MOST = 0.05

interface Side {
  url: string
  pid: number
}

interface CachedRow {
  label: string
  path: string
  options?: LoadOptions
}

/** Reads answered from memory: requests/s, 10 connections unless said. */
const CACHED: CachedRow[] = [
  { label: 'GET /parcels/0/0', path: '/parcels/0/0' },
  { label: 'GET /districts', path: '/districts' },
  { label: 'GET /v2/parcels/0/0 (token metadata)', path: '/v2/parcels/0/0' },
  { label: 'GET /v2/tiles/info', path: '/v2/tiles/info' },
  { label: 'GET /map, 41 × 41 rectangle', path: '/map?nw=-20,20&se=20,-20' },
  {
    label: 'GET /map, whole grid, identity',
    path: '/map?nw=-150,150&se=150,-150',
    options: { connections: 2, duration: 3 },
  },
  {
    label: 'GET /map, whole grid, br',
    path: '/map?nw=-150,150&se=150,-150',
    options: { connections: 2, duration: 3, headers: { 'accept-encoding': 'br' } },
  },
  {
    label: 'GET /v2/tiles, whole grid, br',
    path: '/v2/tiles',
    options: { connections: 2, duration: 3, headers: { 'accept-encoding': 'br' } },
  },
  { label: 'GET /map.png, 500², cached', path: '/map.png' },
  { label: 'GET /v2/map.png, 1024², cached', path: '/v2/map.png?width=1024&height=1024&size=20' },
]

interface UncachedRow {
  label: string
  /** The request for the i-th sample: something neither service was asked before. */
  path: (i: number) => string
}

/** A centre per sample, spread over the grid, the same for both services. */
const centre = (i: number, salt: number) => {
  const span = GRID_MAX - GRID_MIN + 1
  const n = (i * 7919 + salt * 104_729) % (span * span)
  return `${(n % span) + GRID_MIN},${Math.floor(n / span) + GRID_MIN}`
}

/** A w × h rectangle per sample, inside the grid. */
const rectangle = (i: number, w: number, h: number, salt: number) => {
  const x = GRID_MIN + ((i * 37 + salt * 11) % (GRID_MAX - GRID_MIN + 2 - w))
  const y = GRID_MIN + ((i * 53 + salt * 17) % (GRID_MAX - GRID_MIN + 2 - h))
  return { x1: x, y1: y, x2: x + w - 1, y2: y + h - 1 }
}

/** Reads that do their work on each request: milliseconds per request, one at a time. */
const UNCACHED: UncachedRow[] = [
  { label: 'GET /map.png 500² at size 10, uncached', path: (i) => `/map.png?center=${centre(i, 1)}` },
  {
    label: 'GET /map.png 1024² at size 20, uncached',
    path: (i) => `/map.png?width=1024&height=1024&size=20&center=${centre(i, 2)}`,
  },
  {
    label: 'GET /map.png 2048² at size 20, uncached',
    path: (i) => `/map.png?width=2048&height=2048&size=20&center=${centre(i, 3)}`,
  },
  {
    label: 'GET /v2/map.png 1024² at size 20, uncached',
    path: (i) => `/v2/map.png?width=1024&height=1024&size=20&center=${centre(i, 4)}`,
  },
  {
    label: 'GET /map, new 40 × 40 rectangle',
    path: (i) => {
      const r = rectangle(i, 40, 40, 5)
      return `/map?nw=${r.x1},${r.y2}&se=${r.x2},${r.y1}`
    },
  },
  {
    label: 'GET /map, new 100 × 100 rectangle',
    path: (i) => {
      const r = rectangle(i, 100, 100, 6)
      return `/map?nw=${r.x1},${r.y2}&se=${r.x2},${r.y1}`
    },
  },
  {
    label: 'GET /v2/tiles, new 40 × 40 rectangle, 8 fields',
    path: (i) => {
      const r = rectangle(i, 40, 40, 7)
      return `/v2/tiles?x1=${r.x1}&y1=${r.y1}&x2=${r.x2}&y2=${r.y2}&include=x,y,type,owner,price,top,left,topLeft`
    },
  },
]

export interface CachedResult {
  label: string
  service: Run[]
  baseline: Run[]
  /** service req/s / baseline req/s, per round. */
  ratios: number[]
  /** baseline CPU per request / service CPU per request, per round. */
  cpuRatios: number[]
}

export interface UncachedResult {
  label: string
  serviceMs: number[]
  baselineMs: number[]
  /** baseline ms / service ms, per pair. */
  ratios: number[]
}

export interface AgainstResult {
  baseline: string
  rounds: number
  cached: CachedResult[]
  uncached: UncachedResult[]
  rss: { service: number; baseline: number }
}

async function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`)
  return performance.now() - started
}

const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024

export interface AgainstOptions {
  service: Side
  baseline: Side
  /** What the baseline is, for the table's heading (a commit). */
  baselineName: string
  /** Rounds of the cached rows (default 7), pairs of the uncached rows (default 20). */
  rounds?: number
  samples?: number
  /** Only the rows whose label this matches. */
  only?: RegExp
}

export async function runAgainstBaseline(options: AgainstOptions): Promise<AgainstResult> {
  const { service, baseline } = options
  const rounds = options.rounds ?? 7
  const samples = options.samples ?? 20
  const sides = [service, baseline] as const
  const result: AgainstResult = {
    baseline: options.baselineName,
    rounds,
    cached: [],
    uncached: [],
    rss: { service: 0, baseline: 0 },
  }

  const wanted = (row: { label: string }) => options.only === undefined || options.only.test(row.label)
  for (const row of CACHED.filter(wanted)) {
    // Unmeasured first, on both: the answer made and compressed, the route's code compiled.
    for (const side of sides) {
      await get(`${side.url}${row.path}`, row.options?.headers)
      await load({ url: `${side.url}${row.path}`, pid: side.pid }, { ...row.options, duration: 2 })
    }
    const entry: CachedResult = { label: row.label, service: [], baseline: [], ratios: [], cpuRatios: [] }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : ([baseline, service] as const)
      const runs = new Map<Side, Run>()
      for (const side of order)
        runs.set(side, await load({ url: `${side.url}${row.path}`, pid: side.pid }, row.options))
      const s = runs.get(service) as Run
      const b = runs.get(baseline) as Run
      if (s.errors + b.errors > 0) throw new Error(`${row.label}: ${s.errors} + ${b.errors} failed requests`)
      entry.service.push(s)
      entry.baseline.push(b)
      entry.ratios.push(s.rps / b.rps)
      entry.cpuRatios.push(b.cpuUs / s.cpuUs)
    }
    result.cached.push(entry)
  }

  for (const row of UNCACHED.filter(wanted)) {
    // Three unmeasured requests each (offsets past the measured samples).
    for (let i = 0; i < 3; i++) for (const side of sides) await get(`${side.url}${row.path(samples + i)}`)
    const entry: UncachedResult = { label: row.label, serviceMs: [], baselineMs: [], ratios: [] }
    for (let i = 0; i < samples; i++) {
      const path = row.path(i)
      const serviceFirst = i % 2 === 0
      const first = await get(`${(serviceFirst ? service : baseline).url}${path}`)
      const second = await get(`${(serviceFirst ? baseline : service).url}${path}`)
      const [s, b] = serviceFirst ? [first, second] : [second, first]
      entry.serviceMs.push(s)
      entry.baselineMs.push(b)
      entry.ratios.push(b / s)
    }
    result.uncached.push(entry)
  }
  result.rss = { service: rssOf(service.pid), baseline: rssOf(baseline.pid) }
  return result
}

const verdict = (ratio: number) => (ratio >= 1 - SLOWER_BY_AT_MOST ? 'pass' : '**FAIL**')
const range = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`

export function formatAgainstBaseline(r: AgainstResult): string {
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`
  const target = `≥ ${(1 - SLOWER_BY_AT_MOST).toFixed(2)}×`
  return [
    `| Read, answered from memory | This code: req/s (CPU per request) | ${r.baseline}: req/s (CPU per request) | Speed, this / ${r.baseline}: req/s [rounds] | CPU per request, ${r.baseline} / this | Target |`,
    '|---|---:|---:|---:|---:|---|',
    ...r.cached.map((row) => {
      const rps = (runs: Run[]) => median(runs.map((run) => run.rps))
      const cpu = (runs: Run[]) => median(runs.map((run) => run.cpuUs))
      const ratio = median(row.ratios)
      const cpuRatio = median(row.cpuRatios)
      return `| ${row.label} | ${rps(row.service).toFixed(0)} (${cpu(row.service).toFixed(0)} µs) | ${rps(row.baseline).toFixed(0)} (${cpu(row.baseline).toFixed(0)} µs) | ${ratio.toFixed(2)}× [${range(row.ratios)}] | ${cpuRatio.toFixed(2)}× | ${target} ${verdict(ratio)} |`
    }),
    '',
    `| Read that does its work on each request | This code: median ms | ${r.baseline}: median ms | Speed, ${r.baseline} ms / this ms: median of pairs [p25–p75] | Target |`,
    '|---|---:|---:|---:|---|',
    ...r.uncached.map((row) => {
      const ratio = median(row.ratios)
      const sorted = [...row.ratios].sort((a, b) => a - b)
      const q = (p: number) => (sorted[Math.floor(p * (sorted.length - 1))] as number).toFixed(2)
      return `| ${row.label} | ${median(row.serviceMs).toFixed(1)} | ${median(row.baselineMs).toFixed(1)} | ${ratio.toFixed(2)}× [${q(0.25)}–${q(0.75)}] | ${target} ${verdict(ratio)} |`
    }),
    '',
    `Rounds: ${r.rounds} per cached read (2 s each, 3 s for the whole grid), the order alternating; RSS after the runs: this code ${mib(r.rss.service)}, ${r.baseline} ${mib(r.rss.baseline)}.`,
  ].join('\n')
}

/** A land service built in `serverJs`, started on the environment's database; its URL once ready. */
async function startLand(
  serverJs: string,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; side: Side }> {
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: build that checkout first (pnpm build)`)
  const port = await freePort()
  const child = start([...NODE_FLAGS, serverJs], { ...env, PORT: String(port), HOST: '127.0.0.1' })
  const url = `http://127.0.0.1:${port}`
  await waitFor(`${url}/health/ready`)
  return { child, side: { url, pid: child.pid ?? 0 } }
}

/**
 * This code's land service (dist/server.js, built) and the checkout's, each started anew on the database
 * at `databaseUrl` (so that neither carries the history of earlier runs), every read of both measured.
 */
export async function compareWith(
  checkout: string,
  databaseUrl: string,
  options: Pick<AgainstOptions, 'rounds' | 'samples' | 'only'> = {},
): Promise<AgainstResult> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', LAND_AUTO_SEED: 'never' }
  const children: ChildProcess[] = []
  try {
    const service = await startLand(join(packageRoot, 'dist/server.js'), env)
    children.push(service.child)
    const baseline = await startLand(join(checkout, 'services/land/dist/server.js'), env)
    children.push(baseline.child)
    // Both serialise the grid in the background once ready; let them finish.
    await new Promise((resolve) => setTimeout(resolve, 8000))
    const commit = spawnSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD']).stdout.toString().trim()
    return await runAgainstBaseline({
      ...options,
      service: service.side,
      baseline: baseline.side,
      baselineName: commit || checkout,
    })
  } finally {
    for (const child of children) {
      if (child.exitCode !== null) continue
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
}

/** `node --import tsx bench/against.ts <checkout>`: a seeded throw-away database, both services on it. */
async function main() {
  const checkout = process.argv[2]
  if (!checkout)
    throw new Error('usage: node --import tsx bench/against.ts <checkout of another commit, built>')
  const { migrate } = await import('@genesis/common')
  const { createTestDatabase } = await import('@genesis/common/testing')
  const { migrationsDir } = await import('../src/paths.js')
  const { seed } = await import('../src/seed.js')
  const loadAtStart = loadavg()
  const db = await createTestDatabase()
  try {
    await migrate(db.sql, migrationsDir)
    await seed(db.sql)
    const result = await compareWith(checkout, db.url, {
      rounds: Number(process.env.BENCH_ROUNDS ?? 7),
      ...(process.env.BENCH_ONLY ? { only: new RegExp(process.env.BENCH_ONLY) } : {}),
    })
    console.log(
      `${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; load average ${loadAtStart.map((n) => n.toFixed(1)).join(' / ')} at the start`,
    )
    console.log(formatAgainstBaseline(result))
  } finally {
    await db.drop()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error)
      process.exit(1)
    },
  )
}
