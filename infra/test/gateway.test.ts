/**
 * The gateway configuration (infra/gateway) run by the real nginx binary, on loopback, in front of the
 * three real services (started from their built dist, each on a fresh database), and then in front of an
 * echo server that shows exactly what an upstream receives.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createIdentity, createTestDatabase, signedHeaders, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningGateway, startGateway } from './support/gateway.js'
import { type ErrorEnvelope, send } from './support/http.js'
import { SERVICES, type ServiceName, serviceDir } from './support/paths.js'
import { realInfrastructure } from './support/requirements.js'
import { type RunningService, startService } from './support/services.js'

const DOMAIN = 'genesis.test'
const hostOf: Record<ServiceName, string> = {
  claims: `claims.${DOMAIN}`,
  collections: `builder.${DOMAIN}`,
  land: `land.${DOMAIN}`,
}

interface OpenApi {
  info: { title: string }
  paths: Record<string, unknown>
}

/** A request whose raw bytes we write ourselves (no Host header at all, HTTP/1.0). */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text))
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

const runnable = await realInfrastructure({ nginx: true })

describe.skipIf(!runnable)('the gateway in front of the three services', () => {
  const databases: TestDatabase[] = []
  const services = {} as Record<ServiceName, RunningService>
  let gateway: RunningGateway | undefined
  let dataDir = ''

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'genesis-gateway-services-'))
    for (const service of SERVICES) {
      const dist = join(serviceDir(service), 'dist', 'server.js')
      if (!existsSync(dist)) throw new Error(`${dist} is missing: build the services first (turbo does)`)
      const database = await createTestDatabase()
      databases.push(database)
      services[service] = await startService(service, {
        cwd: serviceDir(service),
        databaseUrl: database.url,
        dataDir: join(dataDir, service),
      })
    }
    gateway = await startGateway({
      domain: DOMAIN,
      upstreams: {
        claims: `127.0.0.1:${services.claims.port}`,
        collections: `127.0.0.1:${services.collections.port}`,
        land: `127.0.0.1:${services.land.port}`,
      },
    })
  })

  afterAll(async () => {
    await gateway?.stop()
    await Promise.all(Object.values(services).map((s) => s.process.stop()))
    for (const database of databases) await database.drop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  const viaGateway = (
    host: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) => send({ port: gateway!.port, host, path, ...init })

  it('has a configuration that nginx accepts without a warning', () => {
    expect(gateway!.configTest).toMatch(/syntax is ok/)
    expect(gateway!.configTest).not.toMatch(/\[(warn|emerg|alert|crit|error)\]/)
  })

  it.each([
    ['claims', '/api/claim-transactions'],
    ['collections', '/v1/collections'],
    ['land', '/v1/districts'],
  ] as const)('routes %s’s hostname to that service', async (service, ownPath) => {
    const response = await viaGateway(hostOf[service], '/openapi.json')
    expect(response.status, response.text.slice(0, 300)).toBe(200)
    const paths = Object.keys(response.json<OpenApi>().paths)
    expect(paths).toContain(ownPath)
    // and only that service: no other service's routes answer on this hostname
    for (const other of SERVICES.filter((s) => s !== service)) {
      const otherPath = {
        claims: '/api/claim-transactions',
        collections: '/v1/collections',
        land: '/v1/districts',
      }[other]
      expect(paths).not.toContain(otherPath)
    }
    const ready = await viaGateway(hostOf[service], '/health/ready')
    expect(ready.status).toBe(200)
  })

  it('matches hostnames case-insensitively and with a port', async () => {
    const upper = await viaGateway(`LAND.${DOMAIN.toUpperCase()}`, '/v1/districts')
    expect(upper.status).toBe(200)
    const withPort = await viaGateway(`land.${DOMAIN}:8443`, '/districts')
    expect(withPort.status).toBe(200)
    expect(withPort.json()).toMatchObject({ ok: true, data: expect.any(Array) })
  })

  it('answers an unknown host with 404 in the error envelope', async () => {
    for (const host of [`shop.${DOMAIN}`, 'claims.other.test', DOMAIN, '127.0.0.1']) {
      const response = await viaGateway(host, '/api/rewards')
      expect(response.status, host).toBe(404)
      expect(response.headers['content-type']).toMatch(/^application\/json/)
      expect(response.json<ErrorEnvelope>()).toEqual({
        ok: false,
        error: expect.any(String),
        code: 'not_found',
      })
    }
    const noHost = await rawRequest(gateway!.port, 'GET /v1/districts HTTP/1.0\r\n\r\n')
    expect(noHost).toMatch(/^HTTP\/1\.1 404/)
    expect(noHost).toContain('"code":"not_found"')
  })

  it('passes a service’s own error answers through untouched', async () => {
    const response = await viaGateway(hostOf.claims, '/api/rewards')
    expect(response.status).toBe(401)
    expect(response.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'unauthorized' })
    const missing = await viaGateway(hostOf.land, '/v1/no-such-route')
    expect(missing.status).toBe(404)
    expect(missing.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('verifies signed requests through the gateway (the signed path arrives unchanged)', async () => {
    const alice = await createIdentity()
    const rewards = await viaGateway(hostOf.claims, '/api/rewards', {
      headers: signedHeaders(alice, 'GET', '/api/rewards'),
    })
    expect(rewards.status, rewards.text).toBe(200)
    expect(rewards.json()).toMatchObject({ ok: true, data: [] })

    // a signed write: created as the signer, and the same signature sent again is a replay
    const id = randomUUID()
    const path = `/v1/collections/${id}`
    const headers = { ...signedHeaders(alice, 'PUT', path), 'content-type': 'application/json' }
    const body = JSON.stringify({ id, name: `Gateway ${id.slice(0, 8)}` })
    const created = await viaGateway(hostOf.collections, path, { method: 'PUT', headers, body })
    expect(created.status, created.text).toBe(204)
    const replayed = await viaGateway(hostOf.collections, path, { method: 'PUT', headers, body })
    expect(replayed.status).toBe(401)
    expect(replayed.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'unauthorized' })

    const read = await viaGateway(hostOf.collections, path, { headers: signedHeaders(alice, 'GET', path) })
    expect(read.status, read.text).toBe(200)
    expect(read.json()).toMatchObject({ ok: true, data: { id, eth_address: alice.address } })

    // a signed read with a query string (the signature covers the path only)
    const list = await viaGateway(hostOf.collections, '/v1/collections?q=gateway&page=1&limit=5', {
      headers: signedHeaders(alice, 'GET', '/v1/collections'),
    })
    expect(list.status, list.text).toBe(200)
    expect(list.json()).toMatchObject({ ok: true, data: expect.any(Array) })
  })

  it('keeps /metrics off the public hostnames (Prometheus scrapes each replica directly)', async () => {
    for (const service of SERVICES) {
      const response = await viaGateway(hostOf[service], '/metrics')
      expect(response.status).toBe(404)
      expect(response.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'not_found' })
      const direct = await send({ port: services[service].port, path: '/metrics' })
      expect(direct.status).toBe(200)
    }
  })
})

describe.skipIf(!runnable)('what an upstream receives through the gateway', () => {
  let echo: Server | undefined
  let gateway: RunningGateway | undefined
  const big = JSON.stringify({
    ok: true,
    data: Array.from({ length: 2000 }, (_, i) => ({ i, name: `item ${i}` })),
  })

  beforeAll(async () => {
    echo = createServer((req, res) => {
      let bytes = 0
      req.on('data', (chunk: Buffer) => {
        bytes += chunk.length
      })
      req.on('end', () => {
        res.setHeader('content-type', 'application/json')
        if (req.url === '/big') return res.end(big)
        // an answer that takes its time: connections held with a request in progress
        if (req.url?.startsWith('/slow')) {
          setTimeout(() => res.end('{"ok":true,"data":null}'), 1500)
          return
        }
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, bodyBytes: bytes }))
      })
    })
    await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', resolve))
    const address = echo.address()
    const upstream = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    gateway = await startGateway({
      domain: DOMAIN,
      upstreams: { claims: upstream, collections: upstream, land: upstream },
    })
  })

  // nginx keeps idle upstream connections open (keepalive): close them too, or close() never finishes
  const closeEcho = async () => {
    const closed = new Promise((resolve) => echo!.close(resolve))
    echo!.closeAllConnections()
    await closed
  }

  afterAll(async () => {
    await gateway?.stop()
    if (echo?.listening) await closeEcho()
  })

  interface Echo {
    method: string
    url: string
    headers: Record<string, string>
    bodyBytes: number
  }
  const viaGateway = (
    host: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) => send({ port: gateway!.port, host, path, ...init })

  it('passes the path and query byte for byte: no slash merging, no normalisation, no rewrite', async () => {
    for (const path of [
      '/v1//collections/./a/../b/%2Fc/?q=a%20b&q=%C3%A9',
      '/api/claim-transactions/',
      '/v1',
    ]) {
      const response = await viaGateway(hostOf.collections, path)
      expect(response.json<Echo>().url).toBe(path)
    }
  })

  it('forwards the Host, the client address, the scheme and a request id', async () => {
    const response = await viaGateway(hostOf.claims, '/api/rewards', {
      headers: { 'x-forwarded-for': '203.0.113.7' },
    })
    const { headers } = response.json<Echo>()
    expect(headers.host).toBe(hostOf.claims)
    expect(headers['x-real-ip']).toBe('127.0.0.1')
    expect(headers['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1')
    expect(headers['x-forwarded-proto']).toBe('http')
    expect(headers['x-forwarded-host']).toBe(hostOf.claims)
    expect(headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/)

    const kept = await viaGateway(hostOf.land, '/v1/districts', {
      headers: { 'x-request-id': 'client-chosen-id' },
    })
    expect(kept.json<Echo>().headers['x-request-id']).toBe('client-chosen-id')

    // the access log is one JSON object per request, with the id the service logs too
    const lines = (await readFile(gateway!.accessLog, 'utf8')).trim().split('\n')
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(entries).toContainEqual(
      expect.objectContaining({
        request_id: headers['x-request-id'],
        host: hostOf.claims,
        method: 'GET',
        uri: '/api/rewards',
        status: 200,
        remote_addr: '127.0.0.1',
      }),
    )
    // and only there: the image's own access log is replaced, not doubled
    expect(await readFile(gateway!.mainAccessLog, 'utf8').catch(() => '')).toBe('')
  })

  it('compresses JSON for clients that accept gzip', async () => {
    const zipped = await viaGateway(hostOf.land, '/big', { headers: { 'accept-encoding': 'gzip' } })
    expect(zipped.headers['content-encoding']).toBe('gzip')
    expect(zipped.headers.vary).toMatch(/accept-encoding/i)
    expect(zipped.raw.length).toBeLessThan(big.length / 3)
    expect(zipped.text).toBe(big)
    const plain = await viaGateway(hostOf.land, '/big')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.text).toBe(big)
  })

  it('lets collections take terms-of-service bodies of several MB, and refuses big bodies elsewhere', async () => {
    // 40,000 hashes of 66 characters, as JSON: about 3 MB
    const hashes = Array.from({ length: 40_000 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`)
    const body = JSON.stringify({ email: 'a@example.com', event: 'publish_collection_tos', hashes })
    const accepted = await viaGateway(hostOf.collections, `/v1/collections/${randomUUID()}/tos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(accepted.status).toBe(200)
    expect(accepted.json<Echo>().bodyBytes).toBe(Buffer.byteLength(body))

    const refused = await viaGateway(hostOf.claims, '/api/claim-transactions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    })
    expect(refused.status).toBe(413)
    expect(refused.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'payload_too_large' })
  })

  it("limits each client address: land's costliest routes at 5 a second (bursts of 20), past it 429 with Retry-After", async () => {
    const paths = ['/v2/map.png?width=4096', '/v1/tiles', '/v2/tiles', '/v1/map', '/parcels/1/2/map.png']
    // 40 at once: the burst passes, the rest are refused by the gateway in the services' envelope
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const path = paths[i % paths.length]!
        return viaGateway(hostOf.land, `${path}${path.includes('?') ? '&' : '?'}n=${i}`)
      }),
    )
    const passed = answers.filter((a) => a.status === 200)
    const refused = answers.filter((a) => a.status === 429)
    expect(passed.length + refused.length).toBe(40)
    expect(passed.length).toBeGreaterThanOrEqual(20)
    expect(passed.length).toBeLessThanOrEqual(25)
    for (const answer of refused) {
      expect(answer.headers['retry-after']).toBe('1')
      expect(answer.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'too_many_requests' })
    }
    // the other routes keep the general limit: 60 more at once all pass
    const others = await Promise.all(
      Array.from({ length: 60 }, (_, i) => viaGateway(hostOf.land, `/v1/districts?n=${i}`)),
    )
    expect(others.map((a) => a.status)).toEqual(others.map(() => 200))
  })

  it("answers nginx's own errors in the envelope: headers too large (431), a request line it cannot read (400)", async () => {
    const large = await viaGateway(hostOf.claims, '/api/rewards', {
      headers: { 'x-padding': 'a'.repeat(20_000) },
    })
    expect(large.status, large.text ?? JSON.stringify(large)).toBe(431)
    expect(large.headers['content-type']).toMatch(/^application\/json/)
    expect(large.json<ErrorEnvelope>()).toEqual({
      ok: false,
      error: 'The request headers are too large',
      code: 'request_header_fields_too_large',
    })
    const garbled = await rawRequest(gateway!.port, 'NOT A REQUEST\r\n\r\n')
    expect(garbled).toMatch(/^HTTP\/1\.1 400 /)
    expect(garbled).toContain('"code":"bad_request"')
  })

  it('refuses a client address more than 64 requests in progress at once: 429 in the envelope', async () => {
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) => viaGateway(hostOf.claims, `/slow?n=${i}`)),
    )
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(64)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(16)
    const refused = answers.find((a) => a.status === 429)!
    expect(refused.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'too_many_requests' })
  })

  it('answers 502 in the error envelope when the service is down', async () => {
    await closeEcho()
    const response = await viaGateway(hostOf.claims, '/api/rewards')
    expect(response.status).toBe(502)
    expect(response.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'bad_gateway' })
  })
})
