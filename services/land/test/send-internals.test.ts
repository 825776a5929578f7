import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CachedBody } from '../src/grid/map-body.js'
import { JSON_TYPE, sendCached, sendData, sendJson } from '../src/routes/send.js'

/*
 * Land's hot reads hand Fastify JSON they serialised themselves (routes/send.ts), relying on Fastify 5's
 * reply.send: a string with a JSON content type, or a Buffer, goes out as is, skipping the route's
 * response serialiser and the preSerialization hooks (lib/reply.js). PERFORMANCE.md lists this; these
 * tests fail if a Fastify release changes it. A bare Fastify app: nothing of land's app is needed.
 */
const Answer = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    data: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
  },
} as const
// What the response serialiser would change: a string where the schema says integer, a property it omits.
const data = { n: '7', extra: true }

let app: FastifyInstance
let preSerializations = 0

beforeAll(async () => {
  app = Fastify()
  app.addHook('preSerialization', async (_request, _reply, payload) => {
    preSerializations++
    return payload
  })
  const schema = { response: { 200: Answer } }
  app.get('/object', { schema }, async (_request, reply) => reply.send({ ok: true, data }))
  app.get('/data', { schema }, (_request, reply) => sendData(reply, data))
  app.get('/buffer', { schema }, (_request, reply) =>
    sendJson(reply, Buffer.from(JSON.stringify({ ok: true, data }))),
  )
  app.get('/cached', { schema }, (request, reply) =>
    sendCached(
      request,
      reply,
      new CachedBody(Buffer.from(JSON.stringify({ ok: true, data: { pad: 'x'.repeat(2000) } }))),
    ),
  )
  app.get('/slices', (request, reply) => sendCached(request, reply, sliced))
  await app.listen({ port: 0, host: '127.0.0.1' })
})

// A body of slices too large to be joined (as the whole grid is): 3 MiB in 1,500 slices of one buffer.
const rows = Buffer.from(
  Array.from({ length: 1500 }, (_, i) => `{"row":${i},"pad":"${'y'.repeat(2048)}"}`).join(','),
)
const sliceList: Buffer[] = [Buffer.from('{"ok":true,"data":[')]
for (let at = 0; at < rows.length; at += 2097) sliceList.push(rows.subarray(at, at + 2097))
sliceList.push(Buffer.from(']}'))
const sliced = new CachedBody(sliceList, rows.length)
const slicedBytes = Buffer.concat(sliceList)

afterAll(async () => {
  await app?.close()
})

describe("Fastify's reply.send with JSON that is already serialised", () => {
  it('serialises an object through the route schema (the control: the schema does change this data)', async () => {
    const before = preSerializations
    const response = await app.inject({ method: 'GET', url: '/object' })
    expect(response.body).toBe('{"ok":true,"data":{"n":7}}')
    expect(preSerializations).toBe(before + 1)
  })

  it('sends sendData’s string as is: no response serialiser, no preSerialization hook', async () => {
    const before = preSerializations
    const response = await app.inject({ method: 'GET', url: '/data' })
    expect(response.body).toBe('{"ok":true,"data":{"n":"7","extra":true}}')
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    expect(preSerializations).toBe(before)
  })

  it('sends a Buffer byte for byte with the JSON content type', async () => {
    const response = await app.inject({ method: 'GET', url: '/buffer' })
    expect(response.body).toBe('{"ok":true,"data":{"n":"7","extra":true}}')
    expect(response.headers['content-type']).toBe(JSON_TYPE)
  })

  it('sends a cached body’s compressed bytes as they are', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/cached',
      headers: { 'accept-encoding': 'gzip' },
    })
    expect(response.headers['content-encoding']).toBe('gzip')
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    expect(JSON.parse(gunzipSync(response.rawPayload).toString())).toEqual({
      ok: true,
      data: { pad: 'x'.repeat(2000) },
    })
  })
})

describe('a body of slices', () => {
  it('stays slices, and is sent over a socket byte for byte, with its length', async () => {
    expect(sliced.chunks.length).toBe(sliceList.length)
    const response = await fetch(`${app.listeningOrigin}/slices`, {
      headers: { 'accept-encoding': 'identity' },
    })
    expect(response.headers.get('content-length')).toBe(String(slicedBytes.length))
    expect(Buffer.from(await response.arrayBuffer()).equals(slicedBytes)).toBe(true)
    const head = await fetch(`${app.listeningOrigin}/slices`, {
      method: 'HEAD',
      headers: { 'accept-encoding': 'identity' },
    })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(slicedBytes.length))
    expect((await head.arrayBuffer()).byteLength).toBe(0)
  })

  it('is compressed, gzip and br, to the same bytes once decompressed', async () => {
    expect(gunzipSync(await sliced.encoded('gzip')).equals(slicedBytes)).toBe(true)
    expect(brotliDecompressSync(await sliced.encoded('br')).equals(slicedBytes)).toBe(true)
  })
})
