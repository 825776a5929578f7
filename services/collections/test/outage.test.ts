import { randomUUID } from 'node:crypto'
import { outageProblems, recovered } from '@genesis/common/testing'
import { useProxiedTestService } from '@genesis/common/testing/vitest'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { call, keysReady, useIdentities } from './helpers.js'

// The service reaches its database through a proxy this file cuts: the shared PostgreSQL never stops.
const [alice] = useIdentities(1)
const t = useProxiedTestService(() => {
  const config = loadConfig({ COMMITTEE_ADDRESSES: alice.address })
  return {
    migrationsDir,
    settings: COLLECTIONS_DB_SETTINGS,
    build: async (sql) => {
      await keysReady(sql, config)
      return buildApp({ sql, config })
    },
  }
})

const list = () => t.app.inject({ method: 'GET', url: '/v1/addresses' })
const create = () => {
  const id = randomUUID()
  return call(t.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: `Outage ${id.slice(0, 8)}` })
}

describe.each(['refuse', 'blackhole'] as const)('a database outage (%s)', (mode) => {
  it('answers 503 with Retry-After within seconds, readiness 503, and recovers without a restart', async (context) => {
    if (t.db.embedded) return context.skip()
    expect((await list()).statusCode).toBe(200)
    await t.proxied.proxy.cut(mode)
    expect(
      await outageProblems(t.app, [list, () => call(t.app, alice, 'GET', '/v1/collections'), create]),
    ).toEqual([])
    await t.proxied.proxy.restore()
    await recovered(t.app, list)
    expect((await create()).statusCode).toBe(204)
  })
})
