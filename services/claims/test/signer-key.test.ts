import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadSignerKey, SIGNER_KEY_FILE } from '../src/chain/signer-key.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claims-key-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('signer key', () => {
  it('uses CLAIMS_SIGNER_PRIVATE_KEY when set (0x optional)', async () => {
    const wallet = Wallet.createRandom()
    const key = await loadSignerKey({ privateKey: wallet.privateKey.slice(2), dataDir: join(dir, 'unused') })
    expect(key).toEqual({ privateKey: wallet.privateKey, source: 'env' })
  })

  it('refuses a malformed key', async () => {
    await expect(loadSignerKey({ privateKey: '0x1234', dataDir: dir })).rejects.toThrow(/64 hex digits/)
  })

  it('generates a key once in DATA_DIR with mode 0600, then reuses it', async () => {
    const dataDir = join(dir, 'data')
    const first = await loadSignerKey({ dataDir })
    expect(first.source).toBe('generated')
    const path = join(dataDir, SIGNER_KEY_FILE)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect((await readFile(path, 'utf8')).trim()).toBe(first.privateKey)

    const second = await loadSignerKey({ dataDir })
    expect(second).toEqual({ privateKey: first.privateKey, source: 'file', path })
  })

  it('two processes starting together agree on one key', async () => {
    const dataDir = join(dir, 'race')
    const keys = await Promise.all(Array.from({ length: 5 }, () => loadSignerKey({ dataDir })))
    expect(new Set(keys.map((k) => k.privateKey)).size).toBe(1)
    expect(keys.filter((k) => k.source === 'generated')).toHaveLength(1)
  })

  it('refuses a corrupted key file rather than signing with something else', async () => {
    const dataDir = join(dir, 'corrupt')
    await loadSignerKey({ dataDir })
    await writeFile(join(dataDir, SIGNER_KEY_FILE), 'not a key\n')
    await expect(loadSignerKey({ dataDir })).rejects.toThrow(/must be a private key/)
  })
})
