import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../src/testing/vitest.js'

const script = fileURLToPath(new URL('./fixtures/slow-server.ts', import.meta.url))
const db = useTestDatabase()

async function start(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, DATABASE_URL: db.url, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /LISTENING (\S+)/.exec(output)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}: ${output}`)))
  })
  const exited = once(child, 'exit') as Promise<[number | null]>
  return { child, base, exited, output: () => output }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('graceful shutdown', () => {
  let server: Awaited<ReturnType<typeof start>> | undefined
  afterAll(() => {
    server?.child.kill('SIGKILL')
  })

  it('finishes in-flight requests, refuses new ones, closes the database and exits 0', async () => {
    server = await start()
    const inFlight = fetch(`${server.base}/slow`).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }))
    await sleep(300)
    server.child.kill('SIGTERM')
    await sleep(200)
    await expect(fetch(`${server.base}/health/live`)).rejects.toThrow()
    await expect(inFlight).resolves.toEqual({ status: 200, body: { ok: true, data: 'done' } })
    const [code] = await server.exited
    expect(code).toBe(0)
    expect(server.output()).toContain('DATABASE_CLOSED')
  })

  it('exits 1 when in-flight requests outlast the deadline', async () => {
    const hung = await start({ SHUTDOWN_TIMEOUT_MS: '500' })
    fetch(`${hung.base}/hang`).catch(() => {})
    await sleep(200)
    hung.child.kill('SIGTERM')
    const [code] = await hung.exited
    expect(code).toBe(1)
  })
})
