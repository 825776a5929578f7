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
import { GridIndex } from '../src/grid/grid-index.js'
import { migrationsDir } from '../src/paths.js'
import { seed } from '../src/seed.js'

// The service reaches its database through a proxy this file cuts: the shared PostgreSQL never stops.
let db: TestDatabase
let proxied: ProxiedDatabase
let grid: GridIndex
let app: Awaited<ReturnType<typeof buildApp>>

beforeAll(async () => {
  db = await createTestDatabase()
  await migrate(db.sql, migrationsDir)
  await seed(db.sql)
  proxied = await proxiedDatabase(db)
  grid = new GridIndex(proxied.sql, { debounceMs: 20 })
  await grid.start()
  app = await buildApp({ sql: proxied.sql, config: loadConfig({}), context: { grid } })
  await app.ready()
}, 120_000)

afterAll(async () => {
  await app?.close()
  await grid?.close()
  await proxied?.close()
  await db?.drop()
})

const get = (url: string) => app.inject({ method: 'GET', url })
const OWNER = `0x${'0'.repeat(40)}`

describe.each(['refuse', 'blackhole'] as const)('a database outage (%s)', (mode) => {
  it('database reads answer 503 within seconds, the in-memory index keeps answering, and it recovers', async (context) => {
    if (db.embedded) return context.skip()
    const fromDatabase = `/v1/addresses/${OWNER}/parcels`
    expect((await get(fromDatabase)).statusCode).toBe(200)
    await proxied.proxy.cut(mode)

    const started = Date.now()
    const refused = await get(fromDatabase)
    expect(Date.now() - started).toBeLessThan(8000)
    expect(refused.statusCode).toBe(503)
    expect(refused.headers['retry-after']).toBeDefined()
    expect(refused.json()).toMatchObject({ ok: false, code: 'service_unavailable' })
    expect((await get('/health/ready')).statusCode).toBe(503)
    for (const url of [
      '/parcels/0/0',
      '/v1/parcels/10/-20',
      '/v1/map?nw=-5,5&se=5,-5',
      '/v1/districts',
      '/map.png',
    ]) {
      expect((await get(url)).statusCode, url).toBe(200)
    }

    await proxied.proxy.restore()
    await eventually(async () => (await get(fromDatabase)).statusCode === 200)
    expect((await get('/health/ready')).statusCode).toBe(200)
  })
})
