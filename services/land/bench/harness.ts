/**
 * What bench/run.ts and bench/against.ts share: servers started in processes of their own (pinned to one
 * core when taskset is at hand, the client on another); the runs and rounds are common's (bench/rounds.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { cpus } from 'node:os'
import { imageRuntime } from '@genesis/common/testing'
import { packageRoot } from '../src/paths.js'

export {
  CONNECTIONS,
  cpuSeconds,
  DURATION_S,
  LOAD_CLIENT_DESCRIPTION,
  type LoadOptions,
  load,
  median,
  type Run,
  rounds,
  roundsOverReads,
  type Target,
} from '../../../packages/common/bench/rounds.js'

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

const image = imageRuntime()
/**
 * Every server runs with the Node flags of the image's command (infra/docker/Dockerfile CMD, which
 * `pnpm start` also uses; PERFORMANCE.md says why each is there), so that bare Fastify, the kit ceiling
 * and the service are compared as deployed.
 */
export const NODE_FLAGS = image.nodeFlags
/** And with the image's settings of the C library's allocator (its `ENV MALLOC_…`). */
export const IMAGE_ENV = image.env
/** Unmeasured load first: a server takes seconds of traffic before its per-request cost settles. */
export const WARMUP_S = 5
export const SERVER_CORE = cpus().length - 1
/**
 * With two cores or more and `taskset` at hand, the client (this process and wrk, or its autocannon worker) runs
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
