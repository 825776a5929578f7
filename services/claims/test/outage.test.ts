import { randomUUID } from 'node:crypto'
import {
  createIdentity,
  type Identity,
  outageProblems,
  type ProxiedTestService,
  recovered,
  signedInject,
  startProxiedTestService,
} from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { ADMIN_TOKEN, admin } from './helpers.js'

// The service reaches its database through a proxy this file cuts: the shared PostgreSQL never stops.
let t: ProxiedTestService
let alice: Identity

beforeAll(async () => {
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
    CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
  })
  t = await startProxiedTestService({
    migrationsDir,
    settings: CLAIMS_DB_SETTINGS,
    build: (sql) => buildApp({ sql, config }),
  })
  alice = await createIdentity()
})
afterAll(() => t?.close())

const list = () => signedInject(t.app, alice, { method: 'GET', url: '/api/claim-transactions' })
const create = () =>
  signedInject(t.app, alice, {
    method: 'POST',
    url: '/api/claim-transactions',
    payload: { rewards: [randomUUID()] },
    metadata: { nonce: randomUUID() },
  })
const rewards = () =>
  t.app.inject({ method: 'GET', url: `/api/rewards?user=${alice.address}`, headers: admin })

describe.each(['refuse', 'blackhole'] as const)('a database outage (%s)', (mode) => {
  it('answers 503 with Retry-After within seconds, readiness 503, and recovers without a restart', async (context) => {
    if (t.db.embedded) return context.skip()
    expect((await list()).statusCode).toBe(200)
    await t.proxied.proxy.cut(mode)
    expect(await outageProblems(t.app, [list, create, rewards])).toEqual([])
    await t.proxied.proxy.restore()
    await recovered(t.app, list)
    expect((await create()).json()).toMatchObject({ ok: false, code: 'reward_not_found' })
  })
})
