/**
 * `pnpm --filter @genesis/common bench:kit`: what each of the kit's per-request features costs. Six
 * servers, each in its own process on the last core (the client, rounds.ts' wrk or autocannon, on core 0):
 * a bare Fastify, then request ids, the request logger, the metrics, the CORS headers added one at a time,
 * then createApp itself. All answer the same 428 bytes of JSON from memory. Rounds rotate the order; a
 * figure is the median over the rounds, a ratio the median of the per-round ratios to bare.
 * Knobs: BENCH_ROUNDS (7), BENCH_DURATION_S (2), DATABASE_URL (createApp's health check needs one),
 * BENCH_KIT_READ=database (each answer after a `select 1`: what the kit adds to a read that awaits PostgreSQL).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { imageRuntime } from '../src/testing/image.js'
import { LOAD_CLIENT_DESCRIPTION, load, median } from './rounds.js'
import { RUNGS } from './rungs.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 2)
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const packageRoot = fileURLToPath(new URL('..', import.meta.url))
const image = imageRuntime()
const serverCore = cpus().length - 1
const pinning = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0
if (pinning) spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' })

function startRung(rung: string): Promise<{ url: string; child: ChildProcess }> {
  // As the image runs a service (its Node flags and allocator settings), so rungs are priced as deployed.
  const args = [...image.nodeFlags, '--import', 'tsx', 'bench/kit-rung.ts', rung, DATABASE_URL]
  const [command, commandArgs] = pinning
    ? ['taskset', ['-c', String(serverCore), process.execPath, ...args]]
    : [process.execPath, args]
  const child = spawn(command as string, commandArgs as string[], {
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

async function run({ url, child }: { url: string; child: ChildProcess }, duration: number) {
  const result = await load({ url: `${url}/answer`, pid: child.pid ?? 0 }, { duration })
  if (result.errors > 0) throw new Error(`${url}: ${result.errors} failed requests`)
  return result
}

const servers = await Promise.all(RUNGS.map(startRung))
try {
  const load0 = loadavg()[0]!.toFixed(1)
  for (const server of servers) await run(server, 1) // warm-up
  const runs = RUNGS.map(() => [] as { rps: number; cpuUs: number }[])
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < RUNGS.length; i++) {
      const at = (i + round) % RUNGS.length
      runs[at]!.push(await run(servers[at]!, DURATION_S))
    }
  }
  console.log(
    `kit ladder${process.env.BENCH_KIT_READ === 'database' ? ' (each answer after a select 1)' : ''}: ${ROUNDS} rounds × ${DURATION_S} s, 10 connections from ${LOAD_CLIENT_DESCRIPTION}, load average ${load0} → ${loadavg()[0]!.toFixed(1)}`,
  )
  console.log(
    '| rung (each adds to the one above) | req/s | ratio to bare [range] | CPU per request | added |',
  )
  console.log('|---|---:|---:|---:|---:|')
  let previous = 0
  RUNGS.forEach((rung, i) => {
    const ratios = runs[i]!.map((run, round) => run.rps / runs[0]![round]!.rps)
    const cpu = median(runs[i]!.map((run) => run.cpuUs))
    const range = `[${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}]`
    const added = i === 0 ? '' : `${cpu - previous >= 0 ? '+' : ''}${(cpu - previous).toFixed(1)} µs`
    console.log(
      `| ${rung} | ${median(runs[i]!.map((r) => r.rps)).toFixed(0)} | ${median(ratios).toFixed(2)} ${range} | ${cpu.toFixed(1)} µs | ${added} |`,
    )
    previous = cpu
  })
} finally {
  for (const { child } of servers) child.kill()
}
