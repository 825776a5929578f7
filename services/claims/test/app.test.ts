import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestService } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { createVoucherSigner } from '../src/chain/voucher.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { setUp, type TestContext } from './helpers.js'

let t: TestContext
beforeAll(async () => {
  t = await setUp()
})
afterAll(async () => t.close())

describe('the app', () => {
  it('documents every route in /openapi.json, generated from the schemas', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' })
    expect(response.statusCode).toBe(200)
    const paths = response.json().paths
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/api/claim-transactions',
        '/api/claim-transactions/{id}',
        '/api/rewards',
        '/api/signer',
      ]),
    )
    expect(paths['/api/claim-transactions'].post.responses['201']).toBeDefined()
    expect(paths['/api/claim-transactions/{id}'].patch).toBeDefined()
  })

  it('answers unknown routes with a 404 envelope, and CORS preflights for PATCH', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/api/nothing' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toMatchObject({ ok: false, code: 'not_found' })
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/claim-transactions/1',
      headers: { origin: 'https://wallet.example', 'access-control-request-method': 'PATCH' },
    })
    expect(preflight.statusCode).toBe(204)
    expect(preflight.headers['access-control-allow-methods']).toMatch(/PATCH/)
  })
})

describe('buildApp', () => {
  it('signs with the signer handed in through context, and then writes no key to DATA_DIR', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'claims-context-'))
    const wallet = Wallet.createRandom()
    const service = await startTestService({
      migrationsDir,
      settings: CLAIMS_DB_SETTINGS,
      build: (sql) =>
        buildApp({
          sql,
          config: loadConfig({ DATA_DIR: dataDir, CLAIMS_ADMIN_TOKEN: 'operator-token-0123456789' }),
          context: { signer: createVoucherSigner(wallet.privateKey) },
        }),
    })
    try {
      const response = await service.app.inject({ method: 'GET', url: '/api/signer' })
      expect(response.json().data.address).toBe(wallet.address.toLowerCase())
      expect(await readdir(dataDir)).toEqual([])
    } finally {
      await service.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
