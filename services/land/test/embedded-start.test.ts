import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'

/*
 * land's first start as `pnpm start` runs it: no DATABASE_URL, a new DATA_DIR. The embedded database is
 * created, and the Genesis City demo set is loaded by a process of its own (generating and writing it
 * grows a JavaScript heap by hundreds of megabytes, which the service's process would keep for good):
 * the service's log names the seeding process, and it serves the set.
 */
const packageRoot = join(import.meta.dirname, '..')
let server: ChildProcess
let dataDir: string
let base = ''
const lines: Array<Record<string, unknown>> = []

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'land-first-start-'))
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL'))
  server = spawn(process.execPath, ['--import', 'tsx', join(packageRoot, 'src/server.ts')], {
    cwd: packageRoot,
    env: { ...env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let buffered = ''
  server.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk
    const parts = buffered.split('\n')
    buffered = parts.pop() ?? ''
    for (const part of parts) {
      try {
        const line = JSON.parse(part) as Record<string, unknown>
        lines.push(line)
        if (line.msg === 'listening' && typeof line.address === 'string') base = line.address
      } catch {
        // not a log line
      }
    }
  })
  const deadline = Date.now() + 120_000
  for (;;) {
    if (server.exitCode !== null) throw new Error(`land exited with ${server.exitCode}`)
    if (Date.now() > deadline) throw new Error('land did not get ready on a new embedded database')
    if (base && (await fetch(`${base}/health/ready`).catch(() => undefined))?.status === 200) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}, 150_000)

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve))
    server.kill('SIGTERM')
    await exited
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

it('seeds the demo set from a process of its own, then serves it', async () => {
  const seeded = lines.find((line) => line.msg === 'land: Genesis City seeded')
  expect(seeded).toMatchObject({
    parcels: 90_601,
    districts: expect.any(Number),
    seedPid: expect.any(Number),
  })
  expect(seeded?.seedPid).not.toBe(server.pid)
  expect(seeded?.seedPid).not.toBe(0)
  const districts = (await (await fetch(`${base}/v1/districts`)).json()) as { data: unknown[] }
  expect(districts.data.length).toBe(seeded?.districts)
  const listed = (await (await fetch(`${base}/v1/parcels?limit=1`)).json()) as { data: { total: number } }
  expect(listed.data.total).toBeGreaterThan(0)
}, 30_000)
