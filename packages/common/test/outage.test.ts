import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { eventually, type ProxiedDatabase, proxiedDatabase } from '../src/testing/index.js'
import { useTestDatabase } from '../src/testing/vitest.js'

// The database is reached through a proxy this file cuts and restores: the shared server never stops.
const db = useTestDatabase()
let proxied: ProxiedDatabase
let app: App

beforeAll(async () => {
  proxied = await proxiedDatabase(db)
  app = await createApp({ name: 'outage', version: '0.0.0', sql: proxied.sql })
  app.get('/from-database', async () => ok((await proxied.sql`select 1 as one`)[0]))
  app.get('/from-memory', async () => ok('still here'))
  await app.ready()
})

afterAll(async () => {
  await app?.close()
  await proxied?.close()
})

const get = (url: string) => app.inject({ method: 'GET', url })

describe.each(['refuse', 'blackhole'] as const)('a database outage (%s)', (mode) => {
  it('answers 503 with Retry-After in the envelope within seconds, and recovers without a restart', async (context) => {
    if (db.embedded) return context.skip()
    expect((await get('/from-database')).statusCode).toBe(200)
    await proxied.proxy.cut(mode)

    const started = Date.now()
    const answer = await get('/from-database')
    const waited = Date.now() - started
    expect(answer.statusCode).toBe(503)
    expect(answer.headers['retry-after']).toBe('5')
    expect(answer.json()).toEqual({
      ok: false,
      error: 'The database is unavailable; retry shortly',
      code: 'service_unavailable',
    })
    // Bounded by the query deadline or the connect timeout (a couple of seconds here), never minutes.
    expect(waited).toBeLessThan(8000)
    expect((await get('/health/ready')).statusCode).toBe(503)
    expect((await get('/from-memory')).statusCode).toBe(200)

    await proxied.proxy.restore()
    await eventually(async () => (await get('/from-database')).statusCode === 200)
    expect((await get('/health/ready')).statusCode).toBe(200)
  })
})
