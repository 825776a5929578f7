import { outageProblems, recovered } from '@genesis/common/testing'
import { useProxiedTestService } from '@genesis/common/testing/vitest'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { migrationsDir } from '../src/paths.js'
import { demoSeed } from './helpers.js'

// The service reaches its database through a proxy this file cuts: the shared PostgreSQL never stops.
const t = useProxiedTestService(() => {
  const config = loadConfig({ LAND_REFRESH_DEBOUNCE_MS: '20', LAND_PREWARM: 'false' })
  return { migrationsDir, seed: demoSeed, build: (sql) => buildApp({ sql, config }) }
}, 120_000)

const get = (url: string) => () => t.app.inject({ method: 'GET', url })
const fromDatabase = get(`/v1/addresses/0x${'0'.repeat(40)}/parcels`)

describe.each(['refuse', 'blackhole'] as const)('a database outage (%s)', (mode) => {
  it('database reads answer 503 within seconds, the in-memory index keeps answering, and it recovers', async (context) => {
    if (t.db.embedded) return context.skip()
    expect((await fromDatabase()).statusCode).toBe(200)
    await t.proxied.proxy.cut(mode)
    expect(await outageProblems(t.app, [fromDatabase])).toEqual([])
    for (const url of [
      '/parcels/0/0',
      '/v1/parcels/10/-20',
      '/v1/map?nw=-5,5&se=5,-5',
      '/v1/districts',
      '/map.png',
    ]) {
      expect((await get(url)()).statusCode, url).toBe(200)
    }
    await t.proxied.proxy.restore()
    await recovered(t.app, fromDatabase)
  })
})
