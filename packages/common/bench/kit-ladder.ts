/**
 * `pnpm --filter @genesis/common bench:kit`: what each of the kit's per-request features costs. Seven
 * servers: a bare Fastify, then request ids, the request logger, the metrics, the CORS headers added one
 * at a time, then createApp itself, then the same route with @fastify/compress's hooks (as the services'
 * routes have them); each in BENCH_INSTANCES processes (3) on the last core, the client (rounds.ts' wrk or
 * autocannon) on core 0. All answer the same 428 bytes of JSON from memory. Rounds rotate the order, each
 * run after a second unmeasured; a rung's figure in a round is the median of its processes' (one process
 * that settled slower or faster for its life moves nothing), a figure the median over the rounds, a ratio
 * the median of the per-round ratios to bare.
 * Knobs: BENCH_RUNGS (a comma-separated subset; bare is always run), BENCH_ROUNDS (7), BENCH_DURATION_S
 * (2), BENCH_INSTANCES (3), DATABASE_URL (createApp's health check needs one), BENCH_KIT_READ=database
 * (each answer after a `select 1`: what the kit adds to a read that awaits PostgreSQL; the database's
 * backends are then pinned to core 0 with the client).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { imageRuntime } from '../src/testing/image.js'
import { onServerCore, pin, pinBackends } from './pinning.js'
import {
  LOAD_CLIENT_DESCRIPTION,
  load,
  median,
  medianPerRound,
  rounds,
  SETTLE_S,
  type Target,
} from './rounds.js'
import { RUNGS, type Rung } from './rungs.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 2)
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 3)
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const packageRoot = fileURLToPath(new URL('..', import.meta.url))
const image = imageRuntime()
pin(process.pid, 0)

function startRung(rung: Rung): Promise<{ url: string; child: ChildProcess }> {
  // As the image runs a service (its Node flags and allocator settings), so rungs are priced as deployed.
  const args = [...image.nodeFlags, '--import', 'tsx', 'bench/kit-rung.ts', rung, DATABASE_URL]
  const [command, commandArgs] = onServerCore(process.execPath, args)
  const child = spawn(command, commandArgs, {
    cwd: packageRoot,
    env: { ...process.env, ...image.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const url = /listening (\S+)/.exec(chunk.toString())?.[1]
      if (url) resolve({ url, child })
    })
    child.once('exit', (code) => reject(new Error(`rung ${rung} exited with ${code}`)))
  })
}

const rungs = RUNGS.filter(
  (rung) => rung === 'bare' || (process.env.BENCH_RUNGS ?? RUNGS.join(',')).split(',').includes(rung),
)

/** `metrics#2`: the second process of the metrics rung. */
const processesOf = (rung: Rung) => Array.from({ length: INSTANCES }, (_, i) => `${rung}#${i + 1}`)
const servers = new Map<string, ChildProcess>()
try {
  const targets: Record<string, Target> = {}
  for (let i = 0; i < INSTANCES; i++) {
    for (const rung of rungs) {
      const { url, child } = await startRung(rung)
      const key = processesOf(rung)[i]!
      servers.set(key, child)
      targets[key] = { url: `${url}/answer`, pid: child.pid ?? 0 }
    }
  }
  const load0 = loadavg()[0]!.toFixed(1)
  // unmeasured load first: a server takes seconds of traffic before its per-request cost settles
  for (const target of Object.values(targets)) await load(target, { duration: 2 })
  await pinBackends(process.env.BENCH_KIT_READ === 'database' ? DATABASE_URL : undefined)
  const r = await rounds(targets, ROUNDS, { duration: DURATION_S, settleS: SETTLE_S })
  const failed = Object.keys(targets).filter((key) => r.errors(key) > 0)
  if (failed.length > 0) throw new Error(`failed requests from ${failed.join(', ')}`)
  const rps = (rung: Rung) => medianPerRound(r.runs, processesOf(rung), (run) => run.rps)
  const cpu = (rung: Rung) => median(medianPerRound(r.runs, processesOf(rung), (run) => run.cpuUs))
  console.log(
    `kit ladder${process.env.BENCH_KIT_READ === 'database' ? ' (each answer after a select 1)' : ''}: ` +
      `${INSTANCES} processes a rung, ${ROUNDS} rounds × ${DURATION_S} s (each after ${SETTLE_S} s unmeasured), ` +
      `10 connections from ${LOAD_CLIENT_DESCRIPTION}, load average ${load0} → ${loadavg()[0]!.toFixed(1)}`,
  )
  console.log(
    '| rung (each adds to the one above) | req/s | ratio to bare [range] | CPU per request | added |',
  )
  console.log('|---|---:|---:|---:|---:|')
  const bare = rps('bare')
  let previous = 0
  for (const rung of rungs) {
    const ratios = rps(rung).map((x, round) => x / bare[round]!)
    const cost = cpu(rung)
    const range = `[${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}]`
    const added =
      rung === 'bare' ? '' : `${cost - previous >= 0 ? '+' : ''}${(cost - previous).toFixed(1)} µs`
    console.log(
      `| ${rung} | ${median(rps(rung)).toFixed(0)} | ${median(ratios).toFixed(2)} ${range} | ${cost.toFixed(1)} µs | ${added} |`,
    )
    previous = cost
  }
} finally {
  for (const child of servers.values()) child.kill()
}
