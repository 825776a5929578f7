/**
 * Load against HTTP servers in processes of their own: autocannon runs that also take the server's CPU time
 * per request, and rounds in which the targets take turns (every service's comparisons with bare Fastify).
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { median } from '../src/testing/stats.js'

export { median }

export const CONNECTIONS = 10
export const DURATION_S = 2
const CLOCK_TICKS = 100

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
}

export interface LoadOptions {
  duration?: number
  connections?: number
  headers?: Record<string, string>
}

export async function load(target: Target, options: LoadOptions = {}): Promise<Run> {
  const cpuBefore = cpuSeconds(target.pid)
  const result = await autocannon({
    url: target.url,
    duration: options.duration ?? DURATION_S,
    connections: options.connections ?? CONNECTIONS,
    headers: options.headers ?? {},
    // The client in a thread of its own, away from this process's heap and event loop.
    workers: 1,
  })
  const cpu = cpuSeconds(target.pid) - cpuBefore
  const total = result.requests.total || 1
  return {
    rps: result.requests.average,
    errors: result.errors + result.non2xx + result.timeouts,
    bytesPerRequest: result.throughput.total / total,
    p50: result.latency.p50,
    cpuUs: (cpu * 1e6) / total,
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
  const names = Object.keys(targets) as K[]
  const runs = Object.fromEntries(names.map((n) => [n, [] as Run[]])) as Record<K, Run[]>
  for (let round = 0; round < count; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length] as K
      runs[name].push(await load(targets[name], options))
    }
  }
  const rps = (name: K) => median(runs[name].map((r) => r.rps))
  const cpu = (name: K) => median(runs[name].map((r) => r.cpuUs))
  const p50 = (name: K) => median(runs[name].map((r) => r.p50))
  /** a / b in req/s, per round, and the median. */
  const ratios = (a: K, b: K) => runs[a].map((run, i) => run.rps / (runs[b][i]?.rps ?? Number.NaN))
  /** b / a in CPU per request (capacity of a relative to b), per round, and the median. */
  const capacity = (a: K, b: K) =>
    median(runs[a].map((run, i) => (runs[b][i]?.cpuUs ?? Number.NaN) / run.cpuUs))
  const errors = (name: K) => runs[name].reduce((n, r) => n + r.errors, 0)
  return { runs, rps, cpu, p50, ratios, ratio: (a: K, b: K) => median(ratios(a, b)), capacity, errors }
}
