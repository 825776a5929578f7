/**
 * What bench/run.ts and bench/against.ts share: servers started in processes of their own (pinned to one
 * core when taskset is at hand, the client on another), autocannon runs with the server's CPU time per
 * request, and rounds in which the targets take turns.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus } from 'node:os'
import { median } from '@genesis/common/testing'
import autocannon from 'autocannon'
import { packageRoot } from '../src/paths.js'

export { median }

export const CONNECTIONS = 10
export const DURATION_S = 2
const CLOCK_TICKS = 100

/** An ephemeral port the OS hands out, for the service (which takes its port from PORT). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/**
 * Every server runs with the flags `pnpm start` runs land with: the image's (infra/docker/Dockerfile CMD)
 * and a young generation of at most 2 × 8 MiB (package.json, "start"): under thousands of requests a
 * second V8 grows each semi-space to its default 16 MiB and keeps them, some 25 MiB more resident on the
 * embedded default for no CPU per request measured (BENCHMARKS.md, "Memory on the embedded default").
 */
export const NODE_FLAGS = ['--single-threaded-gc', '--max-semi-space-size=8']
/** And with the image's settings of the C library's allocator (infra/docker/Dockerfile ENV). */
export const IMAGE_ENV = { MALLOC_MMAP_THRESHOLD_: '65536' }
/** Unmeasured load first: a server takes seconds of traffic before its per-request cost settles. */
export const WARMUP_S = 5
export const SERVER_CORE = cpus().length - 1
/**
 * With two cores or more and `taskset` at hand, the client (this process and its autocannon worker) runs
 * on core 0 and every server on the last core: each server measured gets the same core, and the client
 * never competes with it. Without that, whichever processes the scheduler puts together decide the figures.
 */
export const pinning = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0
if (pinning) spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' })

export function start(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // taskset execs the command, so the child's pid is the server's own.
  const [command, commandArgs] = pinning
    ? ['taskset', ['-c', String(SERVER_CORE), process.execPath, ...args]]
    : [process.execPath, args]
  const child = spawn(command as string, commandArgs as string[], {
    cwd: packageRoot,
    env: { ...IMAGE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk))
  return child
}

/** The URL a baseline server prints (`listening http://…`) once it listens. */
export function announced(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (\S+)/.exec(chunk.toString())
      if (match?.[1]) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`a baseline server exited with ${code}`)))
  })
}

export async function waitFor(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    if (Date.now() > deadline) throw new Error(`${url} did not answer in time`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

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
