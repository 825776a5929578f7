// The repository's commands as a person types them (`pnpm start`, `pnpm chain`, `pnpm demo`, …), run from
// the repository root, each in its own process group so that a Ctrl-C can be sent the way a terminal
// sends it: to the whole group.
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

export const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url))

export interface Command {
  child: ChildProcess
  /** Everything written so far. */
  stdout(): string
  stderr(): string
  /** Resolves with the first match of `pattern` in stdout, or rejects when the command exits first. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** A Ctrl-C typed in its terminal: SIGINT to its process group. */
  interrupt(): void
}

/**
 * The environment of a fresh shell: the test runner's, without the test database (the quick start has
 * none) and without pnpm's own variables of the test run.
 */
export function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (
      /^(DATABASE_URL|TEST_DATABASE_URL|INIT_CWD|npm_.*|PNPM_SCRIPT_SRC_DIR|VITEST.*|NODE_OPTIONS)$/.test(key)
    )
      continue
    env[key] = value
  }
  return { ...env, ...extra }
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = repositoryRoot): Command {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let out = ''
  let err = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  const waitFor = (pattern: RegExp, timeoutMs: number) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(out)
        if (!match) return false
        cleanup()
        resolve(match)
        return true
      }
      const onData = () => check()
      const timer = setTimeout(() => {
        cleanup()
        reject(
          new Error(`${command} ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms\n${out}\n${err}`),
        )
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        child.stdout!.off('data', onData)
      }
      if (check()) return
      child.stdout!.on('data', onData)
      exited.then(({ code, signal }) => {
        if (check()) return
        cleanup()
        reject(
          new Error(
            `${command} ${args.join(' ')} exited (${signal ?? code}) before ${pattern}\n${out}\n${err}`,
          ),
        )
      })
    })
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor,
    exited,
    interrupt: () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT')
    },
  }
}

/** Stops a command still running: Ctrl-C, then SIGKILL to its group if it has not exited in time. */
export async function stopCommand(command: Command | undefined, timeoutMs = 20_000): Promise<void> {
  if (!command || command.child.exitCode !== null || command.child.signalCode !== null) return
  command.interrupt()
  const timer = setTimeout(() => {
    try {
      process.kill(-command.child.pid!, 'SIGKILL')
    } catch {
      // gone meanwhile
    }
  }, timeoutMs)
  await command.exited
  clearTimeout(timer)
}

/** Loopback ports nothing listens on now. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer()
          server.listen(0, '127.0.0.1', () => resolve(server))
        }),
    ),
  )
  const ports = servers.map((server) => (server.address() as { port: number }).port)
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  return ports
}
