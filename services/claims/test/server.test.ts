import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNER_KEY_FILE } from '../src/chain/signer-key.js'

const packageDir = fileURLToPath(new URL('..', import.meta.url))
let db: TestDatabase
let dataDir: string

beforeAll(async () => {
  db = await createTestDatabase()
  dataDir = await mkdtemp(join(tmpdir(), 'claims-server-'))
})
afterAll(async () => {
  await db.drop()
  await rm(dataDir, { recursive: true, force: true })
})

interface Started {
  child: ChildProcess
  lines: Record<string, unknown>[]
  baseUrl: string
}

/** Starts src/server.ts as `pnpm start` would (entry, config, migrations, listen), on an ephemeral port. */
function startServer(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: packageDir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((resolve, reject) => {
    let buffered = ''
    child.stdout!.on('data', (chunk) => {
      buffered += chunk
      const parts = buffered.split('\n')
      buffered = parts.pop() ?? ''
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>
        lines.push(line)
        // runService's line, in the shape of every service's logs
        if (line.msg === 'listening' && typeof line.address === 'string')
          resolve({ child, lines, baseUrl: line.address })
      }
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)))
  })
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  return exited
}

describe('server entry', () => {
  it('generates the signer key once in DATA_DIR (0600), logs its address and serves it; exits 0 on SIGTERM', async () => {
    const first = await startServer({})
    const logged = first.lines.find((l) => String(l.msg).startsWith('claims voucher signer'))
    expect(logged).toMatchObject({ source: 'generated', keyFile: join(dataDir, SIGNER_KEY_FILE) })
    const address = logged!.signer as string
    expect(address).toMatch(/^0x[0-9a-f]{40}$/)
    const served = await (await fetch(`${first.baseUrl}/api/signer`)).json()
    expect(served).toEqual({
      ok: true,
      data: { address, domain: { name: 'RewardsDispenser', version: '1' } },
    })
    expect((await stat(join(dataDir, SIGNER_KEY_FILE))).mode & 0o777).toBe(0o600)
    expect((await fetch(`${first.baseUrl}/health/ready`)).status).toBe(200)
    expect(await stop(first.child)).toBe(0)

    // the next start reuses the key
    const second = await startServer({})
    expect(second.lines.find((l) => String(l.msg).startsWith('claims voucher signer'))).toMatchObject({
      signer: address,
      source: 'file',
    })
    expect(await stop(second.child)).toBe(0)
    // two process starts (tsx, imports, migrations): on a loaded 2-core machine one takes ~20 s
  }, 120_000)

  it('refuses to start with a bad configuration, naming every bad variable', async () => {
    await expect(startServer({ CLAIM_TTL_S: 'soon', RPC_URL_12: 'https://x' })).rejects.toThrow(
      /CLAIM_TTL_S[\s\S]*RPC_URL_12/,
    )
  })
})
