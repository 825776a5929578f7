import { randomUUID } from 'node:crypto'
import { outageProblems, recovered, signedInject } from '@genesis/common/testing'
import { useProxiedTestService } from '@genesis/common/testing/vitest'
import { Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { ADMIN_TOKEN, admin, useIdentities } from './helpers.js'

// The service reaches its database through a proxy this file cuts: the shared PostgreSQL never stops.
const t = useProxiedTestService(() => {
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
    CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
  })
  return { migrationsDir, settings: CLAIMS_DB_SETTINGS, build: (sql) => buildApp({ sql, config }) }
})
const [alice] = useIdentities(1)

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
