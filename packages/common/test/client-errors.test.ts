import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { useTestDatabase } from '../src/testing/vitest.js'

/*
 * Requests refused before Fastify sees them. Defect: an HTTP/1.1 request without Host (Node's own 400),
 * an Expect other than 100-continue (Node's own 417) and CONNECT (the socket dropped without an answer)
 * got no envelope, an empty body or nothing at all. The parser's refusals are pinned here too.
 */

const db = useTestDatabase()
let app: App
let port: number

beforeAll(async () => {
  app = await createApp({ name: 'raw', version: '0.0.0', sql: db.sql })
  app.get('/x', async () => ok('x'))
  app.post('/x', async () => ok('x'))
  await app.listen({ host: '127.0.0.1', port: 0 })
  port = (app.server.address() as { port: number }).port
})

afterAll(async () => {
  await app?.close()
})

/** Sends raw bytes; the answer's status, headers (lower-case names) and body, once the server closes. */
function raw(text: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    // Written, not ended: Node aborts a request whose client half-closes before the answer.
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      received += chunk
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      const split = received.indexOf('\r\n\r\n')
      if (split === -1) return reject(new Error(`no answer: ${JSON.stringify(received)}`))
      const [statusLine = '', ...lines] = received.slice(0, split).split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      )
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: received.slice(split + 4) })
    })
  })
}

const refusals: [string, string, number, string, RegExp][] = [
  [
    'a control character in a header value',
    'GET /x HTTP/1.1\r\nHost: a\r\nX-A: b\x01c\r\n\r\n',
    400,
    'bad_request',
    /not valid HTTP/,
  ],
  [
    'a space in a header name',
    'GET /x HTTP/1.1\r\nHost: a\r\nX A: b\r\n\r\n',
    400,
    'bad_request',
    /not valid HTTP/,
  ],
  ['a request line that is not one', 'GARBAGE\r\n\r\n', 400, 'bad_request', /not valid HTTP/],
  ['an unknown HTTP version', 'GET /x HTTP/9.9\r\nHost: a\r\n\r\n', 400, 'bad_request', /not valid HTTP/],
  [
    'both Content-Length and Transfer-Encoding',
    'POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    400,
    'bad_request',
    /not valid HTTP/,
  ],
  [
    'headers over the limit',
    `GET /x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    431,
    'request_header_fields_too_large',
    /too large/,
  ],
  ['an HTTP/1.1 request without Host', 'GET /x HTTP/1.1\r\n\r\n', 400, 'bad_request', /Host header/],
  [
    'an expectation other than 100-continue',
    'GET /x HTTP/1.1\r\nHost: a\r\nExpect: fancy\r\n\r\n',
    417,
    'expectation_failed',
    /100-continue/,
  ],
  ['CONNECT', 'CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n', 400, 'bad_request', /not a proxy/],
]

describe('requests refused before routing', () => {
  it.each(refusals)(
    '%s: answered in the envelope, then the connection closed',
    async (_, text, status, code, message) => {
      const answer = await raw(text)
      expect(answer.status).toBe(status)
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(answer.headers.connection).toBe('close')
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body))
      const body = JSON.parse(answer.body)
      expect(body).toMatchObject({ ok: false, code })
      expect(body.error).toMatch(message)
    },
  )

  it('still answers a good request, HTTP/1.0 without Host included', async () => {
    const good = await raw('GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')
    expect([good.status, JSON.parse(good.body)]).toEqual([200, { ok: true, data: 'x' }])
    const old = await raw('GET /x HTTP/1.0\r\n\r\n')
    expect([old.status, JSON.parse(old.body)]).toEqual([200, { ok: true, data: 'x' }])
  })
})
