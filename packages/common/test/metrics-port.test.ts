// With METRICS_PORT, /metrics is not on the public port at all: the gateway, an Ingress or anybody reaching
// the service's port finds nothing there, and the scraper reads it on its own port.
import type { AddressInfo } from 'node:net'
import { expect, it } from 'vitest'
import { createApp, ok } from '../src/index.js'
import { serveMetrics } from '../src/kit/metrics.js'
import { useKitDatabase } from './set-up.js'

const db = useKitDatabase()

it('serves /metrics on its own port only, with what the app recorded', async () => {
  const app = await createApp({ name: 'demo', version: '1', sql: db.sql, metricsPort: 9999 })
  app.get('/hello', async () => ok('hi'))
  const metrics = await serveMetrics(app.metrics, 0, '127.0.0.1')
  try {
    expect((await app.inject({ url: '/hello' })).statusCode).toBe(200)
    const onPublic = await app.inject({ url: '/metrics' })
    expect(onPublic.statusCode).toBe(404)
    expect(onPublic.json()).toMatchObject({ ok: false, code: 'not_found' })
    const { port } = metrics.address() as AddressInfo
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`)
    expect(scraped.status).toBe(200)
    expect(await scraped.text()).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/hello"/)
    expect((await fetch(`http://127.0.0.1:${port}/hello`)).status).toBe(404)
  } finally {
    metrics.close()
    await app.close()
  }
  // without it, /metrics is a route of the app (development, tests)
  const plain = await createApp({ name: 'demo', version: '1', sql: db.sql })
  expect((await plain.inject({ url: '/metrics' })).statusCode).toBe(200)
  await plain.close()
})
