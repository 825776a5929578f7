import { createRequire } from 'node:module'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { installMetrics, timing, UNMATCHED_ROUTE } from '../src/kit/metrics.js'
import { installNotFound } from '../src/kit/not-found.js'

/*
 * Hot paths that lean on a library's internals (PERFORMANCE.md): each test here fails when a release of
 * that library no longer does what the kit relies on. The Keccak sponge's private `_state` is covered by
 * native-crypto.test.ts (every hash compared with ethers'), the postgres.js patch by postgres-queue.test.ts.
 */
const require = createRequire(import.meta.url)

describe('prom-client 15.1.3: the request-duration histogram recorded without prom-client', () => {
  // kit/metrics.ts keeps its own series and overrides Histogram#getForPromString, which the registry's
  // text exposition calls and Histogram#get wraps (lib/registry.js, lib/histogram.js).
  const scraped = async () => {
    const app = Fastify()
    const { registry, recorder } = installMetrics(app, 'demo')
    await installNotFound(app, timing(recorder(UNMATCHED_ROUTE)))
    app.get('/x', async () => 'x')
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/x' })
    await app.inject({ method: 'GET', url: '/nowhere' })
    await app.close()
    return registry
  }
  const labels = 'method="GET",route="/x",status_code="200"'

  it('exports the series in the text exposition, cumulative buckets, sum and count', async () => {
    const text = await (await scraped()).getSingleMetricAsString('http_request_duration_seconds')
    const lines = text.split('\n')
    expect(lines.slice(0, 2)).toEqual([
      '# HELP http_request_duration_seconds HTTP request duration in seconds, by method, route and status code',
      '# TYPE http_request_duration_seconds histogram',
    ])
    const buckets = lines
      .filter((line) => line.startsWith('http_request_duration_seconds_bucket{') && line.includes(labels))
      .map((line) => Number(line.split(' ').pop()))
    expect(buckets).toHaveLength(12)
    expect(buckets.every((count, i) => i === 0 || count >= buckets[i - 1]!)).toBe(true)
    expect(lines).toContain(`http_request_duration_seconds_bucket{le="+Inf",service="demo",${labels}} 3`)
    expect(lines).toContain(`http_request_duration_seconds_count{service="demo",${labels}} 3`)
    const sum = lines.find((line) =>
      line.startsWith(`http_request_duration_seconds_sum{service="demo",${labels}}`),
    )
    expect(Number(sum?.split(' ').pop())).toBeGreaterThan(0)
    expect(lines).toContain(
      'http_request_duration_seconds_count{service="demo",method="GET",route="unmatched",status_code="404"} 1',
    )
  })

  it('exports the same series as JSON (Histogram#get splays the shared labels into each line)', async () => {
    const metrics = await (await scraped()).getMetricsAsJSON()
    const histogram = metrics.find((metric) => metric.name === 'http_request_duration_seconds')
    expect(histogram).toMatchObject({ type: 'histogram', aggregator: 'sum' })
    expect(histogram?.values).toContainEqual({
      labels: { le: '+Inf', method: 'GET', route: '/x', status_code: 200, service: 'demo' },
      value: 3,
      metricName: 'http_request_duration_seconds_bucket',
    })
    expect(histogram?.values).toContainEqual({
      labels: { method: 'GET', route: '/x', status_code: 200, service: 'demo' },
      value: 3,
      metricName: 'http_request_duration_seconds_count',
    })
  })

  it('counts each method and status of a route in its own series, however they alternate', async () => {
    const app = Fastify()
    const { registry } = installMetrics(app, 'demo')
    app.route<{ Querystring: { status?: string } }>({
      method: ['GET', 'DELETE'],
      url: '/y',
      handler: async (request, reply) => reply.code(Number(request.query.status ?? 200)).send('y'),
    })
    const sent: Array<['GET' | 'DELETE', number]> = [
      ['GET', 200],
      ['GET', 404],
      ['GET', 200],
      ['DELETE', 200],
      ['GET', 200],
      ['DELETE', 404],
      ['GET', 404],
    ]
    for (const [method, status] of sent) await app.inject({ method, url: `/y?status=${status}` })
    await app.close()
    const text = await registry.getSingleMetricAsString('http_request_duration_seconds')
    const count = (method: string, status: number) =>
      Number(
        text
          .split('\n')
          .find((line) =>
            line.startsWith(
              `http_request_duration_seconds_count{service="demo",method="${method}",route="/y",status_code="${status}"}`,
            ),
          )
          ?.split(' ')
          .pop(),
      )
    expect([count('GET', 200), count('GET', 404), count('DELETE', 200), count('DELETE', 404)]).toEqual([
      3, 2, 1, 1,
    ])
  })
})

// Both packages fall back to JavaScript without their prebuilt native code; the fallback is correct but
// several times slower, so a release without a linux-x64 prebuild must not pass unnoticed.
describe.runIf(process.platform === 'linux' && process.arch === 'x64')('native code, linux-x64', () => {
  it('keccak 3.0.4 loads its native binding', () => {
    expect(require('keccak')).toBe(require('keccak/bindings'))
  })

  it('secp256k1 5.0.1 loads its native binding', () => {
    expect(require('secp256k1')).toBe(require('secp256k1/bindings'))
  })
})
