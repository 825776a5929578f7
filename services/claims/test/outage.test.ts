import { randomUUID } from 'node:crypto'
import { migrate } from '@genesis/common'
import {
  createIdentity,
  createTestDatabase,
  eventually,
  type Identity,
  type ProxiedDatabase,
  proxiedDatabase,
  signedInject,
  type TestDatabase,
} from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { ADMIN_TOKEN, admin } from './helpers.js'

// The service reaches its database through a proxy this file cuts: the shared PostgreSQL never stops.
let db: TestDatabase
let proxied: ProxiedDatabase
let app: Awaited<ReturnType<typeof buildApp>>
let alice: Identity

beforeAll(async () => {
  db = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
  await migrate(db.sql, migrationsDir)
  proxied = await proxiedDatabase(db, { settings: CLAIMS_DB_SETTINGS })
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
    CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
  })
  app = await buildApp({ sql: proxied.sql, config })
  alice = await createIdentity()
})

afterAll(async () => {
  await app?.close()
  await proxied?.close()
  await db?.drop()
})

const requests = () => [
  () => signedInject(app, alice, { method: 'GET', url: '/api/claim-transactions' }),
  () =>
    signedInject(app, alice, {
      method: 'POST',
      url: '/api/claim-transactions',
      payload: { rewards: [randomUUID()] },
      metadata: { nonce: randomUUID() },
    }),
  () => app.inject({ method: 'GET', url: `/api/rewards?user=${alice.address}`, headers: admin }),
]

describe.each(['refuse', 'blackhole'] as const)('a database outage (%s)', (mode) => {
  it('answers 503 with Retry-After within seconds, readiness 503, and recovers without a restart', async (context) => {
    if (db.embedded) return context.skip()
    expect((await requests()[0]!()).statusCode).toBe(200)
    await proxied.proxy.cut(mode)

    for (const send of requests()) {
      const started = Date.now()
      const answer = await send()
      expect(Date.now() - started).toBeLessThan(8000)
      expect(answer.statusCode, answer.body).toBe(503)
      expect(answer.headers['retry-after']).toBeDefined()
      expect(answer.json()).toMatchObject({ ok: false, code: 'service_unavailable' })
    }
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(503)

    await proxied.proxy.restore()
    await eventually(async () => (await requests()[0]!()).statusCode === 200)
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200)
    const created = await requests()[1]!()
    expect(created.json()).toMatchObject({ ok: false, code: 'reward_not_found' })
  })
})
