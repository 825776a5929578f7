import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServiceProcess } from '@genesis/common/testing'
import { useTestDatabase } from '@genesis/common/testing/vitest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNER_KEY_FILE } from '../src/chain/signer-key.js'

const packageDir = fileURLToPath(new URL('..', import.meta.url))
const db = useTestDatabase()
let dataDir: string

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'claims-server-'))
})
afterAll(() => rm(dataDir, { recursive: true, force: true }))

/** Starts src/server.ts as `pnpm start` would (entry, config, migrations, listen), on an ephemeral port. */
const startServer = (env: Record<string, string>) =>
  startServiceProcess({ cwd: packageDir, env: { DATABASE_URL: db.url, DATA_DIR: dataDir, ...env } })

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
    expect(await first.stop()).toBe(0)

    // the next start reuses the key
    const second = await startServer({})
    expect(second.lines.find((l) => String(l.msg).startsWith('claims voucher signer'))).toMatchObject({
      signer: address,
      source: 'file',
    })
    expect(await second.stop()).toBe(0)
    // two process starts (tsx, imports, migrations): on a loaded 2-core machine one takes ~20 s
  }, 120_000)

  it('refuses to start with a bad configuration, naming every bad variable', async () => {
    await expect(startServer({ CLAIM_TTL_S: 'soon', RPC_URL_12: 'https://x' })).rejects.toThrow(
      /CLAIM_TTL_S[\s\S]*RPC_URL_12/,
    )
  })
})
