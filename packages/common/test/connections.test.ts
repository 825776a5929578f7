// What a connection may cost a replica: silent sockets and trickled bodies are closed within the stated
// timeouts, a request refused before its body arrived closes its connection, and past the cap a new
// connection is closed at once. A real listening server and raw sockets, as an attacker would send them.
import { connect, type Socket } from 'node:net'
import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { useKitDatabase } from './set-up.js'

const db = useKitDatabase()
let app: App
let port = 0

const limits = { headersTimeoutMs: 600, requestTimeoutMs: 1500, keepAliveTimeoutMs: 600, maxConnections: 6 }

beforeAll(async () => {
  app = await createApp({ name: 'demo', version: '1.0.0', sql: db.sql, connections: limits })
  app.post(
    '/things',
    { config: { auth: 'signed' }, schema: { body: Type.Object({ name: Type.String() }) } },
    async () => ok(null),
  )
  app.post('/open', { schema: { body: Type.Object({ name: Type.String() }) } }, async () => ok(null))
  app.get('/cheap', async () => ok('yes'))
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = (app.server.address() as { port: number }).port
})
afterAll(() => app.close())

interface Held {
  socket: Socket
  received: () => string
  closed: Promise<number>
}

/** A raw connection: what it was sent back, and when (ms after it opened) the server closed it. */
async function open(): Promise<Held> {
  const socket = connect(port, '127.0.0.1')
  const opened = Date.now()
  let received = ''
  socket.on('data', (chunk) => {
    received += chunk.toString()
  })
  socket.on('error', () => {})
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)))
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return { socket, received: () => received, closed }
}

/** Sends `body` a byte at a time every `everyMs` until the socket closes. */
function trickle(socket: Socket, body: string, everyMs: number) {
  let at = 0
  const timer = setInterval(() => {
    if (socket.destroyed || at >= body.length) return clearInterval(timer)
    socket.write(body[at++]!)
  }, everyMs)
  socket.once('close', () => clearInterval(timer))
}

const post = (path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`

describe('connections a caller does not finish', () => {
  it('a socket that sends nothing is closed once the headers timeout passes', async () => {
    const held = await open()
    const closedAfter = await held.closed
    expect(closedAfter).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50)
    expect(held.received()).not.toMatch(/^HTTP\/1\.1 200/)
  })

  it('headers sent a line at a time are cut at the headers timeout: 408', async () => {
    const held = await open()
    held.socket.write('GET /cheap HTTP/1.1\r\nhost: x\r\n')
    const timer = setInterval(() => held.socket.destroyed || held.socket.write('x-slow: 1\r\n'), 100)
    await held.closed
    clearInterval(timer)
    expect(held.received()).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('a body trickled to a route that would take it is cut at the request timeout: 408 in the envelope', async () => {
    const held = await open()
    const body = JSON.stringify({ name: 'x'.repeat(200) })
    held.socket.write(post('/open', body.length))
    trickle(held.socket, body, 100)
    await held.closed
    expect(held.received()).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('a request refused before its body arrived (401, 404) closes its connection instead of reading the rest', async () => {
    for (const path of ['/things', '/nowhere']) {
      const held = await open()
      const body = JSON.stringify({ name: 'x'.repeat(5000) })
      held.socket.write(post(path, body.length))
      trickle(held.socket, body, 200)
      const closedAfter = await held.closed
      expect(held.received()).toMatch(path === '/things' ? /^HTTP\/1\.1 401 / : /^HTTP\/1\.1 404 /)
      expect(held.received().toLowerCase()).toContain('connection: close')
      // closed with the answer, well before the request timeout would have cut it
      expect(closedAfter).toBeLessThan(limits.requestTimeoutMs)
    }
  })

  it('keeps a connection open between requests that carry no body, found or not (keep-alive)', async () => {
    const held = await open()
    for (const path of ['/cheap', '/nowhere', '/cheap']) {
      const before = held.received().length
      held.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
      await new Promise<void>((resolve) => {
        const poll = () =>
          /\r\n\r\n\{.*\}$/s.test(held.received().slice(before)) ? resolve() : setTimeout(poll, 10)
        poll()
      })
      const answer = held.received().slice(before).toLowerCase()
      expect(answer).toMatch(path === '/cheap' ? /^http\/1\.1 200 / : /^http\/1\.1 404 /)
      expect(answer).not.toContain('connection: close')
    }
    expect(held.socket.destroyed).toBe(false)
    held.socket.destroy()
  })

  it('past the connection cap a new connection is closed at once; the held ones time out and room comes back', async () => {
    const held = await Promise.all(Array.from({ length: limits.maxConnections }, open))
    const extra = await open()
    await extra.closed
    expect(extra.received()).toBe('')
    await Promise.all(held.map((h) => h.closed))
    const answer = await fetch(`http://127.0.0.1:${port}/cheap`)
    expect(answer.status).toBe(200)
  })
})
