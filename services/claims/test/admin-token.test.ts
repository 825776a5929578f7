import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { adminTokenOf, DEV_ADMIN_TOKEN_FILE } from '../src/domain/admin-token.js'

let dataDir: string
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'claims-admin-token-'))
})
afterEach(() => rm(dataDir, { recursive: true, force: true }))

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

describe('the admin token', () => {
  it('is CLAIMS_ADMIN_TOKEN when set, and nothing is written', async () => {
    const token = 'an-operator-token-from-a-secret'
    expect(await adminTokenOf({ CLAIMS_ADMIN_TOKEN: token, DATA_DIR: dataDir })).toEqual({
      token,
      source: 'env',
    })
    expect(await exists(join(dataDir, DEV_ADMIN_TOKEN_FILE))).toBe(false)
  })

  it('on the embedded database outside production: generated once into DATA_DIR (0600), then kept', async () => {
    const first = await adminTokenOf({ DATA_DIR: dataDir })
    expect(first).toMatchObject({ source: 'generated', path: join(dataDir, DEV_ADMIN_TOKEN_FILE) })
    expect(first.token).toMatch(/^[0-9a-f]{48}$/)
    expect((await readFile(first.path!, 'utf8')).trim()).toBe(first.token)
    expect((await stat(first.path!)).mode & 0o777).toBe(0o600)
    const again = await adminTokenOf({ DATA_DIR: dataDir, NODE_ENV: 'development' })
    expect(again).toEqual({ ...first, source: 'file' })
  })

  it('two starts at once agree on one token', async () => {
    const both = await Promise.all([adminTokenOf({ DATA_DIR: dataDir }), adminTokenOf({ DATA_DIR: dataDir })])
    expect(both[0].token).toBe(both[1].token)
    expect(both.map((b) => b.source).sort()).toEqual(['file', 'generated'])
  })

  it('stays off in production or on a real database, even with a token file lying around', async () => {
    await adminTokenOf({ DATA_DIR: dataDir })
    expect(await adminTokenOf({ DATA_DIR: dataDir, NODE_ENV: 'production' })).toEqual({
      token: undefined,
      source: 'off',
    })
    expect(
      await adminTokenOf({ DATA_DIR: dataDir, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' }),
    ).toEqual({ token: undefined, source: 'off' })
  })
})
