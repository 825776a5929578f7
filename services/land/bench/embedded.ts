/**
 * Memory of land on the embedded default (`pnpm start` without DATABASE_URL): the service started as
 * `pnpm start` runs it (its flags, and the image's allocator setting), on a new DATA_DIR (the first start: the database
 * created and the demo set seeded) and again on the same directory (every later start). Resident memory
 * when ready, after the PNG runs and the peak, from /proc; after the runs, what the process's own metrics
 * tell of where it goes (V8's heap, memory outside it). The PNG runs: a fixed run of uncached renders
 * (`PNG_RUNS`), then the same URLs asked again and again by ten clients (`REPEATED_RUNS`, thousands a
 * second, answered from the image cache: that is where the memory grew, not in the renders). The target is
 * 1.5 × what atlas-server holds after such runs on the same data (194 MiB): 291 MiB.
 *
 * Alone: `node --import tsx bench/embedded.ts` (from services/land, after `pnpm build`) prints the table.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { packageRoot } from '../src/paths.js'
import { freePort, IMAGE_ENV, NODE_FLAGS } from './harness.js'

export const RSS_TARGET_MIB = 291

export interface EmbeddedMemory {
  start: 'first' | 'later'
  readyMs: number
  readyRss: number
  afterRss: number
  peakRss: number
  /** After the renders: V8's heap (reserved, and used) and the memory V8 knows of outside it (buffers, WebAssembly). */
  heapTotal: number
  heapUsed: number
  external: number
  /** How many renders answered 200 (all of them, when nothing is refused). */
  rendered: number
  renders: number
  /** The repeated same-URL runs: requests per second (median of the runs) and non-2xx or failed answers. */
  repeatedRps: number
  repeatedFailures: number
}

/** The renders: sizes from the land API's default to /v2's largest (drawn at the pixel budget), a new centre each. */
const PNG_RUNS: Array<{ path: string; count: number; together: number }> = [
  { path: '/map.png?width=500&height=500&size=10&publications=true', count: 40, together: 1 },
  { path: '/v2/map.png?width=1024&height=1024&size=24', count: 40, together: 1 },
  { path: '/v2/map.png?width=2048&height=2048&size=20', count: 20, together: 1 },
  { path: '/v2/map.png?width=4096&height=4096&size=50&on-sale=true', count: 10, together: 1 },
  { path: '/v2/map.png?width=1024&height=1024&size=20', count: 40, together: 4 },
]

/**
 * The same URLs again, each asked by ten clients for a few seconds (after one uncached request): what a
 * page of map images or a crawler asks, answered from the image cache at thousands of requests a second.
 */
const REPEATED_RUNS: Array<{ path: string; seconds: number }> = [
  { path: '/map.png', seconds: 5 },
  { path: '/map.png?width=500&height=500&size=10&publications=true&center=10,10', seconds: 5 },
  { path: '/v2/map.png', seconds: 5 },
  { path: '/v2/map.png?width=1024&height=1024&size=20&center=-20,30', seconds: 5 },
]

const statusOf = (pid: number, field: 'VmRSS' | 'VmHWM') => {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kb) * 1024
}

/**
 * The service on a port of its own, with request logs at warn as in the other benches (at info, two log
 * lines per request would be most of what a cached answer costs, and of what this process reads).
 */
async function startService(
  args: string[],
  cwd: string,
  dataDir: string,
): Promise<{ child: ChildProcess; url: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL'))
  const port = await freePort()
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      ...IMAGE_ENV,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return { child, url: `http://127.0.0.1:${port}` }
}

async function untilReady(child: ChildProcess, url: string) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the embedded service exited with ${child.exitCode}`)
    if ((await fetch(`${url}/health/ready`).catch(() => undefined))?.status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function pngRuns(url: string) {
  let seed = 12_345
  const centre = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    return `${(seed % 301) - 150},${(Math.floor(seed / 301) % 301) - 150}`
  }
  let rendered = 0
  let renders = 0
  for (const run of PNG_RUNS) {
    for (let i = 0; i < run.count; i += run.together) {
      const statuses = await Promise.all(
        Array.from({ length: run.together }, async () => {
          const res = await fetch(`${url}${run.path}&center=${centre()}`)
          await res.arrayBuffer()
          return res.status
        }),
      )
      renders += statuses.length
      rendered += statuses.filter((s) => s === 200).length
    }
  }
  return { rendered, renders }
}

async function repeatedRuns(url: string) {
  const rates: number[] = []
  let failures = 0
  for (const run of REPEATED_RUNS) {
    // In a worker thread, so that the load generator does not share this process's event loop.
    const result = await autocannon({
      url: `${url}${run.path}`,
      connections: 10,
      duration: run.seconds,
      workers: 1,
    })
    rates.push(result.requests.average)
    failures += result.errors + result.non2xx
  }
  rates.sort((a, b) => a - b)
  return { repeatedRps: rates[Math.floor(rates.length / 2)] ?? 0, repeatedFailures: failures }
}

/** The process's own figures, from its /metrics (prom-client's default metrics). */
async function v8Memory(url: string) {
  const text = await (await fetch(`${url}/metrics`)).text()
  const metric = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return {
    heapTotal: metric('nodejs_heap_size_total_bytes'),
    heapUsed: metric('nodejs_heap_size_used_bytes'),
    external: metric('nodejs_external_memory_bytes'),
  }
}

async function once(args: string[], cwd: string, dataDir: string, start: EmbeddedMemory['start']) {
  const started = performance.now()
  const { child, url: base } = await startService(args, cwd, dataDir)
  try {
    await untilReady(child, base)
    const readyMs = performance.now() - started
    // the background serialisation of every parcel and the whole-grid /map after the build
    await new Promise((resolve) => setTimeout(resolve, 8000))
    const pid = child.pid ?? 0
    const readyRss = statusOf(pid, 'VmRSS')
    const { rendered, renders } = await pngRuns(base)
    const repeated = await repeatedRuns(base)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const afterRss = statusOf(pid, 'VmRSS')
    const peakRss = statusOf(pid, 'VmHWM')
    return {
      start,
      readyMs,
      readyRss,
      afterRss,
      peakRss,
      ...(await v8Memory(base)),
      rendered,
      renders,
      ...repeated,
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
}

/** The service (`args`: node's arguments, as the image runs it) on a new DATA_DIR, then again on it. */
export async function runEmbeddedMemory(args: string[], cwd: string): Promise<EmbeddedMemory[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'land-bench-embedded-'))
  try {
    return [await once(args, cwd, dataDir, 'first'), await once(args, cwd, dataDir, 'later')]
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`

/** The container's memory limit in the k8s manifest (infra/k8s/base/land.yaml): the peak must stay well under it. */
export const MANIFEST_LIMIT_MIB = 768

export function formatEmbeddedMemory(runs: EmbeddedMemory[]): string {
  const lines = [
    `| Start on the embedded default | ready in | RSS when ready | RSS after the PNG runs | target | peak (limit ${MANIFEST_LIMIT_MIB} MiB) | same-URL req/s | then: V8 heap (used) | outside V8's heap |`,
    '|---|---:|---:|---:|---|---:|---:|---:|---:|',
  ]
  for (const r of runs) {
    const pass = r.afterRss <= RSS_TARGET_MIB * 2 ** 20
    lines.push(
      `| ${r.start === 'first' ? 'first (database created, demo set seeded)' : 'later (same DATA_DIR)'} | ${(r.readyMs / 1000).toFixed(1)} s | ${mib(r.readyRss)} | **${mib(r.afterRss)}** | ≤ ${RSS_TARGET_MIB} MiB ${pass ? 'pass' : '**FAIL**'} | ${mib(r.peakRss)} | ${r.repeatedRps.toFixed(0)} | ${mib(r.heapTotal)} (${mib(r.heapUsed)}) | ${mib(r.external)} |`,
    )
  }
  lines.push('')
  for (const r of runs) {
    lines.push(
      `RSS after the PNG runs, ${r.start} start: ${mib(r.afterRss)} against the target of ${RSS_TARGET_MIB} MiB (${r.afterRss <= RSS_TARGET_MIB * 2 ** 20 ? 'met' : 'NOT met'}); peak ${mib(r.peakRss)}; ` +
        `${r.rendered} of ${r.renders} uncached renders answered 200, ${r.repeatedFailures} same-URL requests failed or not 2xx.`,
    )
  }
  lines.push(
    '',
    "Outside V8's heap, as V8 counts it: the parcels' prepared JSON, the compressed whole-grid answers, the " +
      "renderer's scratch images, the embedded PGlite's files and its WebAssembly memory at its full size (only " +
      "the pages PostgreSQL has touched are resident, so this column and the heap's add up to more than the RSS).",
  )
  return lines.join('\n')
}

// Alone: the built service (dist/server.js) as `pnpm start` runs it.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = await runEmbeddedMemory([...NODE_FLAGS, 'dist/server.js'], packageRoot)
  console.log(formatEmbeddedMemory(runs))
}
