import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestService } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import type { FastifyBaseLogger } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { createVoucherSigner } from '../src/chain/voucher.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { useService } from './helpers.js'

const t = useService()

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

  it("offers the operator's bearer token in /docs, on the routes that take it", async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(spec.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    const { paths } = spec
    const operatorOnly = [{ bearer: [] }]
    const either = [{ signedFetch: [] }, { bearer: [] }]
    expect(paths['/api/rewards'].post.security).toEqual(operatorOnly)
    expect(paths['/api/rewards'].get.security).toEqual(either)
    expect(paths['/api/claim-transactions'].get.security).toEqual(either)
    expect(paths['/api/claim-transactions/{id}'].get.security).toEqual(either)
    expect(paths['/api/claim-transactions/{id}'].patch.security).toEqual(either)
    expect(paths['/api/claim-transactions'].post.security).toEqual([{ signedFetch: [] }])
    expect(paths['/api/signer'].get.security).toBeUndefined()
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

describe('start-up', () => {
  it('logs one line naming the accepted chains without an RPC URL, the watched chain not among them', async () => {
    const lines: { obj: Record<string, unknown>; msg: string }[] = []
    const record = (obj: unknown, msg?: string) => {
      if (typeof obj === 'object' && obj !== null)
        lines.push({ obj: obj as Record<string, unknown>, msg: msg ?? '' })
      else lines.push({ obj: {}, msg: String(obj) })
    }
    const logger = {
      level: 'info',
      info: record,
      warn: record,
      error: record,
      fatal: record,
      debug: () => {},
      trace: () => {},
      silent: () => {},
      child: () => logger,
    } as unknown as FastifyBaseLogger
    const service = await startTestService({
      migrationsDir,
      settings: CLAIMS_DB_SETTINGS,
      build: (sql) =>
        buildApp({
          sql,
          logger,
          config: loadConfig({
            CLAIMS_ADMIN_TOKEN: 'operator-token-0123456789',
            CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
            NODE_ENV: 'production',
            RPC_URL_80002: 'http://127.0.0.1:1',
          }),
        }),
    })
    try {
      // one line for all of them, not one per chain
      const unwatched = lines.filter((l) => l.msg.includes('no RPC_URL_'))
      expect(unwatched).toHaveLength(1)
      expect(unwatched[0]!.obj.chainIds).toEqual(['1', '3', '4', '5', '42', '137', '80001', '11155111'])
      expect(unwatched[0]!.msg).toMatch(
        /chains 1, 3, 4, 5, 42, 137, 80001, 11155111: .*grants on them are refused/,
      )
    } finally {
      await service.close()
    }
  })
})
