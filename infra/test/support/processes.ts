import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { send } from './http.js'

export interface RunningProcess {
  child: ChildProcess
  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  output(): string
  /** SIGTERM, then SIGKILL after graceMs; resolves with the exit code (null when killed by a signal). */
  stop(graceMs?: number): Promise<number | null>
}

const KEPT_LINES = 200

/**
 * Spawns a command, keeping its recent output in memory (pipes are always drained). `stdout` may be a
 * file descriptor instead (nginx cannot open /dev/stdout when it is a pipe, which Node makes a socket).
 */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdout?: number },
): RunningProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
    if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  return {
    child,
    output: () => lines.join('\n'),
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      try {
        return await exited
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

/** Resolves with the first match of `pattern` in the process's output, or rejects on exit or timeout. */
export function waitForOutput(
  proc: RunningProcess,
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = proc.output().match(pattern)
      if (match) {
        cleanup()
        resolve(match)
      }
    }
    const onExit = (code: number | null) => {
      cleanup()
      reject(new Error(`process exited (${code}) before printing ${pattern}:\n${proc.output()}`))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`no ${pattern} after ${timeoutMs} ms:\n${proc.output()}`))
    }, timeoutMs)
    const cleanup = () => {
      clearTimeout(timer)
      proc.child.stdout?.off('data', check)
      proc.child.stderr?.off('data', check)
      proc.child.off('exit', onExit)
    }
    proc.child.stdout?.on('data', check)
    proc.child.stderr?.on('data', check)
    proc.child.once('exit', onExit)
    check()
  })
}

/** Polls GET path until it answers 200. */
export async function waitForStatus(
  port: number,
  path: string,
  timeoutMs: number,
  host?: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    try {
      const response = await send({ port, path, host, timeoutMs: 5000 })
      if (response.status === 200) return
      last = `${response.status} ${response.text.slice(0, 200)}`
    } catch (error) {
      last = String(error)
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`GET ${path} on port ${port} did not answer 200 within ${timeoutMs} ms (last: ${last})`)
}

/** Runs a command to completion and returns its exit code and output. */
export async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; stdout?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', options.stdout ?? 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  child.stdin?.end(options.input ?? '')
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000)
  try {
    // 'close' (not 'exit'): every byte of output has been read by then
    const [code] = (await once(child, 'close')) as [number | null]
    return { code, stdout, stderr }
  } finally {
    clearTimeout(timer)
  }
}
