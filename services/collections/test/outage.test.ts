import { randomUUID } from 'node:crypto'
import { migrate } from '@genesis/common'
import {
  createTestDatabase,
  eventually,
  type ProxiedDatabase,
  proxiedDatabase,
  type TestDatabase,
} from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { call, createIdentity, type Identity } from './helpers.js'

// The service reaches its database through a proxy this file cuts: the shared PostgreSQL never stops.
let db: TestDatabase
let proxied: ProxiedDatabase
let app: Awaited<ReturnType<typeof buildApp>>
let alice: Identity

beforeAll(async () => {
  db = await createTestDatabase({ settings: COLLECTIONS_DB_SETTINGS })
  await migrate(db.sql, migrationsDir)
  proxied = await proxiedDatabase(db, { settings: COLLECTIONS_DB_SETTINGS })
  alice = await createIdentity()
  app = await buildApp({ sql: proxied.sql, config: loadConfig({ COMMITTEE_ADDRESSES: alice.address }) })
})

afterAll(async () => {
  await app?.close()
  await proxied?.close()
  await db?.drop()
})

const requests = () => [
  () => app.inject({ method: 'GET', url: '/v1/addresses' }),
  () => call(app, alice, 'GET', '/v1/collections'),
  () => {
    const id = randomUUID()
    return call(app, alice, 'PUT', `/v1/collections/${id}`, { id, name: `Outage ${id.slice(0, 8)}` })
  },
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
    expect((await requests()[2]!()).statusCode).toBe(204)
  })
})
