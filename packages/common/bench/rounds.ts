/**
 * Load against HTTP servers in processes of their own: runs that also take the server's CPU time per request,
 * and rounds in which the targets take turns (every service's comparisons with bare Fastify).
 *
 * The client is wrk when it is installed (Debian's package `wrk`), autocannon otherwise (or with
 * BENCH_CLIENT=autocannon). On a machine of two cores the client has one: autocannon, a JavaScript client,
 * takes nearly all of it at these rates, so it rather than the server sets the pace, and a slower server
 * costs it more per answer (one answer per wakeup instead of several). wrk needs a fraction of a core, and
 * the server under test runs at 100 % (each run's `serverLoad` says so).
 */
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { median } from '../src/testing/stats.js'

export { median }

export const CONNECTIONS = 10
export const DURATION_S = 2
/** Unmeasured seconds before each measured run of a round (`settleS`): a request's steady cost, not an idle's. */
export const SETTLE_S = 1
const CLOCK_TICKS = 100

/** The load generator of these runs. */
export const LOAD_CLIENT: 'wrk' | 'autocannon' =
  process.env.BENCH_CLIENT !== 'autocannon' && spawnSync('wrk', ['--version']).error === undefined
    ? 'wrk'
    : 'autocannon'

/** How the runs load a server, for a report's method line. */
export const LOAD_CLIENT_DESCRIPTION =
  LOAD_CLIENT === 'wrk'
    ? 'wrk (one thread)'
    : 'autocannon in a worker thread (wrk is not installed: `apt-get install -y wrk` for figures the client does not pace)'

const WRK_SUMMARY = fileURLToPath(new URL('./wrk-summary.lua', import.meta.url))

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; NaN elsewhere). */
export function cpuSeconds(pid: number): number {
  try {
    // After the command name: state is field 0, utime and stime are fields 11 and 12.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}

export interface Target {
  url: string
  pid: number
}

export interface Run {
  rps: number
  errors: number
  bytesPerRequest: number
  p50: number
  /** CPU time the server process spent per request (user + system), in microseconds. */
  cpuUs: number
  /** The server's CPU time over the run's time: about 1 when the server, not the client, sets the pace. */
  serverLoad: number
}

export interface LoadOptions {
  duration?: number
  connections?: number
  headers?: Record<string, string>
  /**
   * Rounds only: seconds of unmeasured load on a server just before each of its measured runs. A server
   * idle while the others take their turn runs V8's idle-time collections, which drop the optimised code
   * built on shapes that no live object has; it is compiled again in the first second back, in proportion
   * to how much code a request runs. Without it, each run is priced from the end of that idle.
   */
  settleS?: number
}

/** What one run of the client gave: requests answered and their rate, bytes, failures, median latency (ms), seconds. */
interface ClientRun {
  requests: number
  rps: number
  bytes: number
  errors: number
  p50: number
  seconds: number
}

function runWrk(url: string, duration: number, connections: number, headers: Record<string, string>) {
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${Math.max(1, Math.round(duration))}s`,
    '-s',
    WRK_SUMMARY,
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    url,
  ]
  return new Promise<ClientRun>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => {
      const line = output.split('\n').find((l) => l.startsWith('{'))
      if (code !== 0 || line === undefined) return reject(new Error(`wrk exited with ${code}: ${output}`))
      const summary = JSON.parse(line) as {
        requests: number
        durationUs: number
        bytes: number
        socketErrors: number
        httpErrors: number
        p50Us: number
      }
      resolve({
        requests: summary.requests,
        rps: summary.requests / (summary.durationUs / 1e6),
        bytes: summary.bytes,
        errors: summary.socketErrors + summary.httpErrors,
        p50: summary.p50Us / 1000,
        seconds: summary.durationUs / 1e6,
      })
    })
  })
}

async function runAutocannon(
  url: string,
  duration: number,
  connections: number,
  headers: Record<string, string>,
) {
  const result = await autocannon({
    url,
    duration,
    connections,
    headers,
    // The client in a thread of its own, away from this process's heap and event loop.
    workers: 1,
  })
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    bytes: result.throughput.total,
    errors: result.errors + result.non2xx + result.timeouts,
    p50: result.latency.p50,
    seconds: duration,
  }
}

export async function load(target: Target, options: LoadOptions = {}): Promise<Run> {
  const duration = options.duration ?? DURATION_S
  const connections = options.connections ?? CONNECTIONS
  const headers = options.headers ?? {}
  const cpuBefore = cpuSeconds(target.pid)
  const run =
    LOAD_CLIENT === 'wrk'
      ? await runWrk(target.url, duration, connections, headers)
      : await runAutocannon(target.url, duration, connections, headers)
  const cpu = cpuSeconds(target.pid) - cpuBefore
  const total = run.requests || 1
  return {
    rps: run.rps,
    errors: run.errors,
    bytesPerRequest: run.bytes / total,
    p50: run.p50,
    cpuUs: (cpu * 1e6) / total,
    serverLoad: cpu / run.seconds,
  }
}

/**
 * Rounds in which every target runs once, the order rotating from round to round: on a shared machine the
 * load changes from second to second, and runs close together see about the same load. Figures are
 * medians over the rounds; ratios are taken within a round, then the median.
 */
export async function rounds<K extends string>(
  targets: Record<K, Target>,
  count: number,
  options: LoadOptions = {},
) {
  return (await roundsOverReads({ read: targets }, count, options)).read
}

/**
 * Rounds of several reads at once: each round runs every read on every server (the servers' order
 * rotating), so whatever drifts over a run (the machine's speed, a server's state as it answers one read
 * after another) reaches every read alike, where read-by-read blocks gave the first reads one state of
 * the servers and the last another.
 */
export async function roundsOverReads<R extends string, K extends string>(
  reads: Record<R, Record<K, Target>>,
  count: number,
  options: LoadOptions = {},
): Promise<Record<R, RoundsSummary<K>>> {
  const readNames = Object.keys(reads) as R[]
  const runs = {} as Record<R, Record<K, Run[]>>
  for (const read of readNames) {
    runs[read] = {} as Record<K, Run[]>
    for (const name of Object.keys(reads[read]) as K[]) runs[read][name] = []
  }
  for (let round = 0; round < count; round++) {
    for (const read of readNames) {
      const names = Object.keys(reads[read]) as K[]
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + round) % names.length] as K
        if (options.settleS) await load(reads[read][name], { ...options, duration: options.settleS })
        runs[read][name].push(await load(reads[read][name], options))
      }
    }
  }
  const summaries = {} as Record<R, RoundsSummary<K>>
  for (const read of readNames) summaries[read] = summary(runs[read])
  return summaries
}

/**
 * Several processes of one kind: its figure in each round, the median of its processes' figures in that
 * round. Processes of the same code settle at different costs for their whole life (where V8 put what,
 * when it compiled what); a median over them keeps one that started slower or faster from moving a figure.
 */
export function medianPerRound<K extends string>(
  runs: Record<K, Run[]>,
  processes: readonly K[],
  figure: (run: Run) => number,
): number[] {
  const count = runs[processes[0]!].length
  return Array.from({ length: count }, (_, round) =>
    median(processes.map((key) => figure(runs[key][round]!))),
  )
}

export type RoundsSummary<K extends string> = ReturnType<typeof summary<K>>

/** Medians of a server's runs, and ratios between servers round by round. */
function summary<K extends string>(runs: Record<K, Run[]>) {
  const rps = (name: K) => median(runs[name].map((r) => r.rps))
  const cpu = (name: K) => median(runs[name].map((r) => r.cpuUs))
  const p50 = (name: K) => median(runs[name].map((r) => r.p50))
  const serverLoad = (name: K) => median(runs[name].map((r) => r.serverLoad))
  /** a / b in req/s, per round, and the median. */
  const ratios = (a: K, b: K) => runs[a].map((run, i) => run.rps / (runs[b][i]?.rps ?? Number.NaN))
  /** b / a in CPU per request (capacity of a relative to b), per round, and the median. */
  const capacity = (a: K, b: K) =>
    median(runs[a].map((run, i) => (runs[b][i]?.cpuUs ?? Number.NaN) / run.cpuUs))
  const errors = (name: K) => runs[name].reduce((n, r) => n + r.errors, 0)
  return {
    runs,
    rps,
    cpu,
    p50,
    serverLoad,
    ratios,
    ratio: (a: K, b: K) => median(ratios(a, b)),
    capacity,
    errors,
  }
}
