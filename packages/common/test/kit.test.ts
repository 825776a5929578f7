import { connect } from 'node:net'
import { PassThrough } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import { Type } from '@sinclair/typebox'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, BadRequestError, createApp, ok } from '../src/index.js'
import { requestIds } from '../src/kit/request-id.js'
import { createIdentity, signedHeaders } from '../src/testing/index.js'
import { useKitDatabase } from './set-up.js'

const db = useKitDatabase()
let app: App
let base: string
let ready = true

const Thing = Type.Object(
  { name: Type.String({ minLength: 1 }), tags: Type.Optional(Type.Array(Type.String(), { maxItems: 3 })) },
  { additionalProperties: false },
)

beforeAll(async () => {
  app = await createApp({
    name: 'demo',
    version: '1.2.3',
    sql: db.sql,
    corsOrigins: '*',
    rateLimitMax: 1000,
    isReady: () => ready,
  })
  app.post('/things', { config: { auth: 'signed' }, schema: { body: Thing } }, async (request, reply) =>
    reply.status(201).send(ok({ ...request.body, by: request.signer })),
  )
  app.get(
    '/things/:id',
    { schema: { params: Type.Object({ id: Type.String({ format: 'uuid' }) }) } },
    async () => {
      throw new BadRequestError('no such thing yet', { code: 'thing_missing', data: { hint: 'create it' } })
    },
  )
  app.get('/boom', async () => {
    throw new Error('select * from secret_table where password = 1')
  })
  app.get(
    '/numbers/:x',
    {
      schema: {
        params: Type.Object({ x: Type.Integer({ minimum: -150, maximum: 150 }) }),
        querystring: Type.Object({ page: Type.Integer({ minimum: 1, default: 1 }) }),
      },
    },
    async (request) => ok({ x: request.params.x, page: request.query.page }),
  )
  app.get(
    '/strict',
    { schema: { querystring: Type.Object({ a: Type.Integer() }, { additionalProperties: false }) } },
    async () => ok(null),
  )
  app.get('/big', async () => ok('x'.repeat(20_000)))
  // A streamed answer whose last bytes come 80 ms after its first.
  app.get('/slow-stream', { compress: false } as object, (_request, reply) => {
    const body = new PassThrough()
    body.write('{"ok":true,')
    setTimeout(() => body.end('"data":null}'), 80)
    reply.type('application/json').send(body)
  })
  app.get('/echo', { schema: { querystring: Type.Object({ q: Type.String() }) } }, async (request) =>
    ok(await db.sql`select ${request.query.q}::text as q`),
  )
  base = await app.listen({ port: 0, host: '127.0.0.1' })
})

afterAll(async () => {
  await app?.close()
})

const call = (path: string, init?: RequestInit) => fetch(`${base}${path}`, init)

describe('service kit over HTTP', () => {
  it('answers liveness and readiness', async () => {
    expect(await (await call('/health/live')).json()).toEqual({ ok: true, data: { status: 'live' } })
    expect((await call('/health/ready')).status).toBe(200)
    ready = false
    const notReady = await call('/health/ready')
    expect(notReady.status).toBe(503)
    expect(await notReady.json()).toMatchObject({ ok: false, code: 'service_unavailable' })
    ready = true
  })

  it('exposes Prometheus metrics with per-route request durations', async () => {
    const live = 'method="GET",route="/health/live",status_code="200"'
    const value = (text: string, line: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(line))
          ?.split(' ')[1] ?? 0,
      )
    const scrape = async () => {
      const text = await (await call('/metrics')).text()
      return {
        text,
        inf: value(text, `http_request_duration_seconds_bucket{le="+Inf",service="demo",${live}}`),
        count: value(text, `http_request_duration_seconds_count{service="demo",${live}}`),
      }
    }
    const before = await scrape()
    await call('/health/live')
    await call('/health/live')
    await call('/no/such/path')
    await call('/things/%zz')
    const after = await scrape()
    // each request counted once, in the +Inf bucket and in _count alike
    expect([after.inf - before.inf, after.count - before.count]).toEqual([2, 2])
    expect(after.text).toMatch(
      /_count\{service="demo",method="GET",route="unmatched",status_code="404"\} [1-9]/,
    )
    // a URL Fastify refuses before routing (a bad percent escape) is timed too
    expect(after.text).toMatch(
      /_count\{service="demo",method="GET",route="unmatched",status_code="400"\} [1-9]/,
    )
    expect(after.text).toContain('process_cpu_user_seconds_total')
  })

  it('times each answer once, a HEAD and an error answer included, and a streamed answer to its end', async () => {
    const series = (text: string, route: string, method: string, status: number, suffix: string) =>
      Number(
        text
          .split('\n')
          .find((l) =>
            l.startsWith(
              `http_request_duration_seconds_${suffix}{service="demo",method="${method}",route="${route}",status_code="${status}"}`,
            ),
          )
          ?.split(' ')[1] ?? 0,
      )
    const before = await (await call('/metrics')).text()
    expect(await (await call('/slow-stream')).json()).toEqual({ ok: true, data: null })
    expect((await call('/health/live', { method: 'HEAD' })).status).toBe(200)
    expect((await call('/boom')).status).toBe(500)
    const after = await (await call('/metrics')).text()
    const added = (route: string, method: string, status: number, suffix: string) =>
      series(after, route, method, status, suffix) - series(before, route, method, status, suffix)
    expect(added('/slow-stream', 'GET', 200, 'count')).toBe(1)
    // Timed to the stream's end, not to the moment it was handed to Fastify.
    expect(added('/slow-stream', 'GET', 200, 'sum')).toBeGreaterThanOrEqual(0.075)
    expect(added('/health/live', 'HEAD', 200, 'count')).toBe(1)
    expect(added('/health/live', 'GET', 200, 'count')).toBe(0)
    expect(added('/boom', 'GET', 500, 'count')).toBe(1)
    expect(added('/boom', 'GET', 200, 'count')).toBe(0)
  })

  it('publishes OpenAPI generated from the route schemas, and its docs page', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(spec.info).toMatchObject({ title: 'demo', version: '1.2.3' })
    expect(
      spec.paths['/things'].post.requestBody.content['application/json'].schema.properties.name,
    ).toBeDefined()
    expect(spec.paths['/things'].post.security).toEqual([{ signedFetch: [] }])
    expect(spec.paths['/health/live']).toBeUndefined()
    // no bearer scheme unless the service takes one
    expect(Object.keys(spec.components.securitySchemes)).toEqual(['signedFetch'])
    const docs = await call('/docs')
    expect(docs.status).toBe(200)
    expect(await docs.text()).toContain('Swagger UI')
  })

  it('answers unknown routes with a 404 envelope, with the headers of every answer', async () => {
    const response = await call('/nowhere?x=1')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      ok: false,
      error: 'Route GET /nowhere not found',
      code: 'not_found',
    })
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('renders thrown errors with their status, code and data', async () => {
    const response = await call('/things/0b9a5b8e-2b1e-4c0f-9a57-3f2f1f0c9d11')
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      ok: false,
      error: 'no such thing yet',
      code: 'thing_missing',
      data: { hint: 'create it' },
    })
  })

  it('never leaks internals in a 500', async () => {
    const response = await call('/boom')
    expect(response.status).toBe(500)
    const body = await response.json()
    expect(body).toEqual({ ok: false, error: 'Internal server error', code: 'internal_server_error' })
  })

  it('answers 400, not 500, when PostgreSQL refuses a value from the request', async () => {
    const response = await call('/echo?q=a%00b')
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ ok: false, code: 'bad_request' })
  })

  it('validates path parameters', async () => {
    const response = await call('/things/not-a-uuid')
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      code: 'bad_request',
      data: { errors: [{ path: 'params.id' }] },
    })
  })

  describe('integers in a path or query are plain decimal', () => {
    it.each([
      '/numbers/0x10',
      '/numbers/1e1',
      '/numbers/%205',
      '/numbers/5.0',
      '/numbers/+5',
      '/numbers/%2B1',
      '/numbers/%201',
      '/numbers/1?page=0x10',
      '/numbers/1?page=1e1',
      '/numbers/1?page=%205',
      '/numbers/1?page=5.0',
      '/numbers/1?page=%2B5',
      '/numbers/1?page=%201',
      '/numbers/1?page=',
    ])('refuses %s with 400 in the envelope', async (url) => {
      const response = await call(url)
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ ok: false, code: 'bad_request' })
    })

    it('lists the first 20 problems and counts the rest, however many were sent', async () => {
      const query = Array.from({ length: 300 }, (_, i) => `p${i}=${'v'.repeat(20)}`).join('&')
      const response = await call(`/strict?a=0x1&${query}`)
      expect(response.status).toBe(400)
      const text = await response.text()
      const body = JSON.parse(text)
      expect(body.data.errors).toHaveLength(20)
      expect(body.data.errors[0]).toEqual({
        path: 'query.a',
        message: 'must be an integer written in decimal digits',
        value: '0x1',
      })
      expect(body.data.more).toBe(281)
      expect(body.error).toMatch(/; and 296 more$/)
      expect(text.length).toBeLessThan(4096)
    })

    it('accepts negatives where the schema allows them, and plain decimals', async () => {
      const response = await call('/numbers/-5?page=12')
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ ok: true, data: { x: -5, page: 12 } })
    })
  })

  describe('framework-level failures answer in the envelope with our codes', () => {
    it.each([
      ['/things/%zz', 400, 'bad_request'],
      ['/things/%c0%ae%c0%ae%c0%af', 400, 'bad_request'],
      [`/things/${'a'.repeat(10_000)}`, 414, 'uri_too_long'],
      [`/nowhere/${'a'.repeat(10_000)}`, 404, 'not_found'],
    ])('%s', async (url, status, code) => {
      const response = await call(url, { headers: { origin: 'https://dapp.example' } })
      expect(response.status).toBe(status)
      const text = await response.text()
      expect(JSON.parse(text)).toMatchObject({ ok: false, code, error: expect.any(String) })
      expect(text.length).toBeLessThan(1024)
      // the headers of any answer: a browser reads the error, a log line finds its request
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
    })

    it('a request the HTTP parser refuses', async () => {
      const { port } = new URL(base)
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
        )
        let text = ''
        socket.on('data', (chunk) => {
          text += chunk.toString()
        })
        socket.on('close', () => resolve(text))
        socket.on('error', reject)
      })
      expect(answer).toMatch(/^HTTP\/1\.1 400/)
      expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toMatchObject({ ok: false, code: 'bad_request' })
    })
  })

  describe('bad bodies on a signed route', () => {
    const send = async (body: string | undefined, contentType = 'application/json') => {
      const headers: Record<string, string> = { ...signedHeaders(alice, 'POST', '/things') }
      if (body !== undefined) headers['content-type'] = contentType
      const response = await call('/things', { method: 'POST', headers, body })
      return {
        status: response.status,
        body: (await response.json()) as { ok: boolean; code: string; error: string; data?: { by?: string } },
      }
    }
    let alice: Awaited<ReturnType<typeof createIdentity>>
    beforeAll(async () => {
      alice = await createIdentity()
    })

    it('accepts a good one', async () => {
      const { status, body } = await send(JSON.stringify({ name: 'n', tags: ['a'] }))
      expect(status).toBe(201)
      expect(body.data?.by).toBe(alice.address)
    })

    it.each([
      ['no body', undefined, /JSON object body is required/],
      ['a body that is not JSON', '{"name": ', /not valid JSON/],
      ['JSON of the wrong type', '["name"]', /JSON object body is required/],
      ['a wrong field type', '{"name": 5}', /body\.name must be string, got 5/],
      ['an unknown field', '{"name": "n", "admin": true}', /body\.admin is not an accepted field/],
      ['an array over its bound', '{"name": "n", "tags": ["a","b","c","d"]}', /body\.tags/],
      ['a missing field', '{}', /body\.name is required/],
    ])('refuses %s with 400', async (_label, body, message) => {
      const response = await send(body)
      expect(response.status).toBe(400)
      expect(response.body.ok).toBe(false)
      expect(response.body.code).toBe('bad_request')
      expect(response.body.error).toMatch(message)
    })

    it('answers an oversized array with one small refusal, not one per element', async () => {
      const tags = Array.from({ length: 300_000 }, () => 1)
      const response = await send(JSON.stringify({ name: 'n', tags }))
      expect(response.status).toBe(400)
      expect(response.body.error).toMatch(/body\.tags must NOT have more than 3 items/)
      expect(JSON.stringify(response.body).length).toBeLessThan(1024)
    })

    it('refuses a body that is not JSON by content-type with 415', async () => {
      const response = await send('name=n', 'application/x-www-form-urlencoded')
      expect(response.status).toBe(415)
      expect(response.body.code).toBe('unsupported_media_type')
    })

    it('refuses a 20 MB body with 413', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(20 * 1024 * 1024) })
      const response = await send(big)
      expect(response.status).toBe(413)
      expect(response.body).toMatchObject({ ok: false, code: 'payload_too_large' })
    })
  })

  it('answers CORS preflights for every method and the signed-fetch headers', async () => {
    const response = await call('/things', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://dapp.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'content-type,x-identity-auth-chain-0,x-identity-timestamp',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toContain('PATCH')
    expect(response.headers.get('access-control-allow-methods')).toContain('DELETE')
    const allowed = response.headers.get('access-control-allow-headers') ?? ''
    for (const h of ['content-type', 'authorization', 'x-identity-auth-chain-0', 'x-identity-metadata']) {
      expect(allowed).toContain(h)
    }
  })

  it('puts CORS headers on error answers too', async () => {
    const response = await call('/things', { method: 'POST', headers: { origin: 'https://dapp.example' } })
    expect(response.status).toBe(401)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('exposes the request id and ETag to browser code on simple answers', async () => {
    const response = await call('/health/live', { headers: { origin: 'https://dapp.example' } })
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toBe('x-request-id, etag, retry-after')
    expect(response.headers.get('vary')).toBeNull()
  })

  it("exposes the service's own headers too, named once and lower-case", async () => {
    const exposing = await createApp({
      name: 'exposing',
      version: '0.0.0',
      sql: db.sql,
      exposeHeaders: ['Idempotent-Replayed', 'etag'],
    })
    try {
      const response = await exposing.inject({
        url: '/health/live',
        headers: { origin: 'https://dapp.example' },
      })
      expect(response.headers['access-control-expose-headers']).toBe(
        'x-request-id, etag, retry-after, idempotent-replayed',
      )
    } finally {
      await exposing.close()
    }
  })

  it('with listed origins: echoes a listed one, leaves others without CORS, and varies on Origin', async () => {
    const listed = await createApp({
      name: 'listed',
      version: '0.0.0',
      sql: db.sql,
      corsOrigins: 'https://a.example, https://b.example',
    })
    listed.get('/big', async () => ok('x'.repeat(20_000)))
    try {
      const allowed = await listed.inject({ url: '/health/live', headers: { origin: 'https://b.example' } })
      expect(allowed.headers['access-control-allow-origin']).toBe('https://b.example')
      expect(allowed.headers.vary).toBe('Origin')
      const other = await listed.inject({ url: '/health/live', headers: { origin: 'https://evil.example' } })
      expect(other.headers['access-control-allow-origin']).toBeUndefined()
      expect(other.headers.vary).toBe('Origin')
      const preflight = await listed.inject({
        method: 'OPTIONS',
        url: '/anything/at/all',
        headers: { origin: 'https://a.example', 'access-control-request-method': 'DELETE' },
      })
      expect(preflight.statusCode).toBe(204)
      expect(preflight.headers['access-control-allow-origin']).toBe('https://a.example')
      expect(preflight.headers['access-control-allow-methods']).toContain('DELETE')
      expect(preflight.headers['access-control-max-age']).toBe('86400')
      // compression's Vary and CORS's Vary together
      const big = await listed.inject({
        url: '/big',
        headers: { origin: 'https://a.example', 'accept-encoding': 'gzip' },
      })
      expect(big.headers['content-encoding']).toBe('gzip')
      expect(String(big.headers.vary).toLowerCase().split(/,\s*/).sort()).toEqual([
        'accept-encoding',
        'origin',
      ])
    } finally {
      await listed.close()
    }
  })

  it('tags every answer with a request id, honouring the caller’s', async () => {
    const response = await call('/health/live', { headers: { 'x-request-id': 'trace-123' } })
    expect(response.headers.get('x-request-id')).toBe('trace-123')
    // its own: uuid-shaped (version 4) and never the same twice
    const made = await Promise.all(
      Array.from({ length: 20 }, async () => (await call('/health/live')).headers.get('x-request-id')),
    )
    for (const id of made)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(made).size).toBe(made.length)
    const sixtyFour = `${'a'.repeat(32)}.${'B'.repeat(28)}_-9`
    expect(sixtyFour).toHaveLength(64)
    const kept = await call('/health/live', { headers: { 'x-request-id': sixtyFour } })
    expect(kept.headers.get('x-request-id')).toBe(sixtyFour)
  })

  it('counts its own request ids under one uuid, and draws a new uuid when the count runs out', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    // four digits: 10,000 ids a uuid
    const next = requestIds(4)
    const ids = Array.from({ length: 10_001 }, next)
    for (const id of ids) expect(id).toMatch(uuid)
    expect(new Set(ids).size).toBe(ids.length)
    const count = (id: string) => id.slice(-4)
    const base = (id: string) => id.slice(0, 32)
    expect([0, 1, 999, 1000, 1001, 9999].map((i) => count(ids[i]!))).toEqual([
      '0000',
      '0001',
      '0999',
      '1000',
      '1001',
      '9999',
    ])
    expect(new Set(ids.slice(0, 10_000).map(base)).size).toBe(1)
    expect(base(ids[10_000]!)).not.toBe(base(ids[9999]!))
    expect(count(ids[10_000]!)).toBe('0000')
  })

  it("replaces a caller's request id that is long or not a plain token, never echoing it", async () => {
    for (const sent of ['a'.repeat(65), 'x'.repeat(8000), 'two words', 'a/b', 'id"quote', 'caf\u00e9']) {
      const response = await call('/health/live', { headers: { 'x-request-id': sent } })
      const answered = response.headers.get('x-request-id')
      expect(answered, sent).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    }
  })

  it('compresses large answers for clients that accept it', async () => {
    const response = await fetch(`${base}/big`, { headers: { 'accept-encoding': 'gzip' } })
    // fetch decompresses transparently; check the header and size through node:http instead.
    expect(response.headers.get('content-encoding')).toBe('gzip')
    const raw = await new Promise<Buffer>((resolve, reject) => {
      import('node:http').then(({ get }) =>
        get(`${base}/big`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(Buffer.concat(chunks)))
        }).on('error', reject),
      )
    })
    expect(raw.length).toBeLessThan(1000)
    expect(JSON.parse(gunzipSync(raw).toString()).data).toHaveLength(20_000)
  })
})

describe('rate limit', () => {
  it('answers 429 in the envelope past the limit, sparing health checks and preflights', async () => {
    const limited = await createApp({ name: 'limited', version: '1', sql: db.sql, rateLimitMax: 2 })
    limited.get('/x', async () => ok(1))
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await limited.inject({ method: 'GET', url: '/x' })).statusCode)
    expect(statuses).toEqual([200, 200, 429])
    const refused = await limited.inject({ method: 'GET', url: '/x' })
    // when to come back, in the header and in the envelope's data
    const seconds = Number(refused.headers['retry-after'])
    expect(seconds).toBeGreaterThanOrEqual(1)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(refused.json()).toMatchObject({
      ok: false,
      code: 'too_many_requests',
      data: { limit: 2, retry_after_s: seconds },
    })
    expect((await limited.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200)
    const preflight = await limited.inject({
      method: 'OPTIONS',
      url: '/x',
      headers: { origin: 'https://dapp.example', 'access-control-request-method': 'GET' },
    })
    expect(preflight.statusCode).toBe(204)
    await limited.close()
  })
})

describe('request logs', () => {
  const appLogging = async (level: string) => {
    const lines: Array<Record<string, unknown>> = []
    const logging = await createApp({
      name: 'logs',
      version: '0.0.0',
      sql: db.sql,
      logger: pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) }),
    })
    logging.get('/note', async (request) => {
      request.log.warn({ thing: 1 }, 'noted')
      request.log.child({ step: 'inner' }).error('inner noted')
      request.log.debug('not at this level')
      return ok(true)
    })
    logging.get('/quiet', async () => ok(true))
    logging.get('/listeners', async (_request, reply) =>
      ok({ finish: reply.raw.listenerCount('finish'), error: reply.raw.listenerCount('error') }),
    )
    return { logging, lines }
  }

  it('binds every line of a request to its id, at info as before', async () => {
    const { logging, lines } = await appLogging('info')
    try {
      // A plain route: the health probes log at debug
      const response = await logging.inject({ url: '/quiet', headers: { 'x-request-id': 'r-1' } })
      expect(response.statusCode).toBe(200)
      expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
        ['incoming request', 'r-1'],
        ['request completed', 'r-1'],
      ])
      // The request and its answer as Fastify's own logger shows them
      expect(lines[0]).toMatchObject({
        req: { method: 'GET', url: '/quiet', host: 'localhost:80', remoteAddress: '127.0.0.1' },
      })
      expect(lines[1]).toMatchObject({ res: { statusCode: 200 }, responseTime: expect.any(Number) })
      expect(lines[1]!.responseTime).toBeGreaterThan(0)
    } finally {
      await logging.close()
    }
  })

  it('listens for the end of an answer only at a level that logs request lines', async () => {
    const listeners = async (level: string) => {
      const { logging } = await appLogging(level)
      try {
        const address = await logging.listen({ port: 0, host: '127.0.0.1' })
        return ((await (await fetch(`${address}/listeners`)).json()) as { data: unknown }).data
      } finally {
        await logging.close()
      }
    }
    // Node's own listener on 'finish' only; Fastify adds one on 'finish' and one on 'error' to time a request.
    expect(await listeners('warn')).toEqual({ finish: 1, error: 0 })
    expect(await listeners('info')).toEqual({ finish: 2, error: 1 })
  })

  it('at warn writes nothing for a quiet request, and binds the lines a request does write', async () => {
    const { logging, lines } = await appLogging('warn')
    try {
      await logging.inject({ url: '/health/live' })
      expect(lines).toEqual([])
      await logging.inject({ url: '/note', headers: { 'x-request-id': 'r-2' } })
      expect(lines).toEqual([
        expect.objectContaining({ level: 40, msg: 'noted', thing: 1, reqId: 'r-2' }),
        expect.objectContaining({ level: 50, msg: 'inner noted', step: 'inner', reqId: 'r-2' }),
      ])
    } finally {
      await logging.close()
    }
  })

  it('binds the line of a URL Fastify cannot route to its request id too', async () => {
    const { logging, lines } = await appLogging('info')
    try {
      const response = await logging.inject({ url: '/note/%zz', headers: { 'x-request-id': 'r-5' } })
      expect(response.statusCode).toBe(400)
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 30, msg: 'request refused', code: 'bad_request', reqId: 'r-5' }),
      )
    } finally {
      await logging.close()
    }
  })

  it("logs a route at its own level, below or above the service's, every line bound to the request", async () => {
    const routeLevels = async (level: string) => {
      const { logging, lines } = await appLogging(level)
      logging.get('/chatty', { logLevel: 'debug' }, async (request, reply) => {
        request.log.debug('chatty detail')
        reply.log.debug('chatty reply')
        return ok(true)
      })
      logging.get('/polled', { logLevel: 'warn' }, async (request) => {
        request.log.info('not at this route level')
        return ok(true)
      })
      try {
        await logging.inject({ url: '/chatty', headers: { 'x-request-id': 'r-3' } })
        await logging.inject({ url: '/polled', headers: { 'x-request-id': 'r-4' } })
        return lines.map((line) => [line.msg, line.reqId])
      } finally {
        await logging.close()
      }
    }
    const chatty = [
      ['incoming request', 'r-3'],
      ['chatty detail', 'r-3'],
      ['chatty reply', 'r-3'],
      ['request completed', 'r-3'],
    ]
    // At warn, the route at debug still writes its lines (its end is listened for since a route logs info).
    expect(await routeLevels('warn')).toEqual(chatty.filter(([msg]) => msg !== 'request completed'))
    expect(await routeLevels('info')).toEqual(chatty)
  })
})
