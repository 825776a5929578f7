import { request as httpRequest } from 'node:http'
import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAdmission } from '../src/admission.js'
import { verifyChain } from '../src/auth/verify.js'
import { type App, createApp, ok } from '../src/index.js'
import { costlyInvalidHeaders, createIdentity, signedHeaders } from '../src/testing/index.js'
import { useKitDatabase } from './set-up.js'

const options = { concurrency: 2, queue: 100, maxWaitMs: 10_000, retryAfterS: 1, what: 'things' }
const busy = (ms: number) => {
  const end = performance.now() + ms
  while (performance.now() < end) {
    // CPU-bound, as a signature recovered in JavaScript is
  }
}
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('admission control', () => {
  it('runs at most `concurrency` pieces of work at once', async () => {
    const admission = createAdmission(options)
    let running = 0
    let most = 0
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admission.run(async () => {
          most = Math.max(most, ++running)
          await later(5)
          running--
          return i
        }),
      ),
    )
    expect(results).toEqual([...Array(10).keys()])
    expect(most).toBe(2)
    expect(admission.stats()).toEqual({ running: 0, waiting: 0, refused: 0 })
  })

  it("takes turns by caller: one caller's flood waits behind its own pieces, and past its share is refused", async () => {
    const admission = createAdmission({ ...options, concurrency: 1, queue: 64, perCaller: 8 })
    const order: string[] = []
    const piece = (caller: string, i: number) =>
      admission.run(async () => {
        order.push(`${caller}${i}`)
        await later(1)
      }, caller)
    // the flood arrives first: 20 pieces of one caller, then one piece of another
    const flood = Array.from({ length: 20 }, (_, i) =>
      piece('a', i).then(
        () => 'done',
        (error: Error) => error.message,
      ),
    )
    const other = piece('b', 0)
    const settled = await Promise.all(flood)
    await other
    // eight wait (the caller's share), the other twelve are refused at once
    expect(settled.filter((r) => r === 'done')).toHaveLength(8)
    expect(settled.filter((r) => r === 'Too many things in progress; retry in 1 s')).toHaveLength(12)
    // the other caller's piece had the second turn, not one after the whole flood
    expect(order.indexOf('b0')).toBe(1)
    expect(admission.stats()).toEqual({ running: 0, waiting: 0, refused: 12 })
  })

  it('lets the event loop turn between two pieces of CPU-bound work', async () => {
    // A timer set before a batch of synchronous work fires after at most one piece of it: the loop polls
    // between two pieces. Without admission, the whole batch runs before the loop turns.
    const order = async (admission: ReturnType<typeof createAdmission>) => {
      const events: string[] = []
      const timer = new Promise<void>((resolve) =>
        setTimeout(() => {
          events.push('timer')
          resolve()
        }, 1),
      )
      await Promise.all([
        timer,
        ...Array.from({ length: 5 }, () =>
          admission.run(async () => {
            busy(15)
            events.push('work')
          }),
        ),
      ])
      return events.indexOf('timer')
    }
    expect(await order(createAdmission(options))).toBeLessThanOrEqual(1)
    expect(await order(createAdmission({ ...options, concurrency: 0 }))).toBe(5)
  })

  it('refuses with 503 and Retry-After when the queue is full, or a turn does not come in time', async () => {
    const admission = createAdmission({ ...options, concurrency: 1, queue: 2, maxWaitMs: 50 })
    let release: () => void = () => {}
    const holding = admission.run(() => new Promise<void>((resolve) => (release = resolve)))
    await later(5) // the first has its turn
    const waiting = [admission.run(async () => 'a'), admission.run(async () => 'b')]
    await expect(admission.run(async () => 'c')).rejects.toMatchObject({
      statusCode: 503,
      code: 'service_unavailable',
      retryAfterS: 1,
      data: { reason: 'overloaded' },
      message: 'Too many things in progress; retry in 1 s',
    })
    // the two waiting ones wait past maxWaitMs: refused too
    for (const refused of await Promise.allSettled(waiting)) expect(refused.status).toBe('rejected')
    expect(admission.stats()).toEqual({ running: 1, waiting: 0, refused: 3 })
    release()
    await holding
    expect(await admission.run(async () => 'd')).toBe('d')
  })
})

describe('the costliest invalid headers of the test kit', () => {
  it('verify every delegation and fail only at the request link', async () => {
    for (const links of [3, 10]) {
      const headers = costlyInvalidHeaders('POST', '/things')
      const chain = Object.keys(headers).filter((name) => name.startsWith('x-identity-auth-chain-'))
      expect(chain).toHaveLength(10)
      const refusal = await verifyChain(
        { method: 'POST', path: '/things', headers: costlyInvalidHeaders('POST', '/things', { links }) },
        { maxAgeS: 60 },
      ).then(
        () => expect.unreachable('accepted'),
        (error: { message: string }) => error.message,
      )
      expect(refusal).toMatch(
        links === 3 ? /not signed by the ephemeral key/ : /not signed by the key the chain delegates to$/,
      )
    }
  })
})

describe('signed fetch under admission control', () => {
  const db = useKitDatabase()
  let app: App

  beforeAll(async () => {
    app = await createApp({
      name: 'demo',
      version: '1.0.0',
      sql: db.sql,
      admission: { verifyConcurrency: 1, heavyConcurrency: 1, queue: 4, maxWaitMs: 10_000 },
    })
    app.post('/things', { config: { auth: 'signed' }, schema: { body: Type.Object({}) } }, async (request) =>
      ok({ signer: request.signer }),
    )
    app.get('/pages/:n', { config: { heavy: true } }, async (request) => {
      const { n } = request.params as { n: string }
      if (n === 'fails') throw new Error('boom')
      await gate
      return ok('x'.repeat(100_000))
    })
  })
  let open: () => void = () => {}
  let gate = new Promise<void>((resolve) => (open = resolve))
  afterAll(async () => {
    await app?.close()
  })

  it('verifies what it can take and refuses the rest with 503 and Retry-After, in the envelope', async () => {
    // twelve callers (a caller waits with at most its share of the queue: tested below)
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        app.inject({
          method: 'POST',
          url: '/things',
          remoteAddress: `10.0.0.${i + 1}`,
          headers: costlyInvalidHeaders('POST', '/things'),
          payload: {},
        }),
      ),
    )
    const refused = answers.filter((a) => a.statusCode === 503)
    const verified = answers.filter((a) => a.statusCode === 401)
    expect(refused.length + verified.length).toBe(12)
    // four waiting (and one running, if its turn came before the others arrived): the rest refused at once
    expect(verified.length).toBeGreaterThanOrEqual(4)
    expect(verified.length).toBeLessThanOrEqual(5)
    for (const answer of refused) {
      expect(answer.headers['retry-after']).toBe('1')
      expect(answer.json()).toEqual({
        ok: false,
        error: 'Too many signature verifications in progress; retry in 1 s',
        code: 'service_unavailable',
        data: { reason: 'overloaded' },
      })
    }
    for (const answer of verified) expect(answer.json().data.reason).toBe('invalid_signature')
    // and once the flood is over, a genuine request goes through
    const alice = await createIdentity()
    const genuine = await app.inject({
      method: 'POST',
      url: '/things',
      headers: signedHeaders(alice, 'POST', '/things'),
      payload: {},
    })
    expect(genuine.json()).toEqual({ ok: true, data: { signer: alice.address } })
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toContain(
      `admission{work="signature_verification",state="refused",service="demo"} ${refused.length}`,
    )
  })

  it('a heavy route: one answer in progress, the queue waits its turn, the rest refused 503 with Retry-After', async () => {
    const answers = Array.from({ length: 8 }, (_, i) =>
      app.inject({ method: 'GET', url: `/pages/${i}`, remoteAddress: `10.0.1.${i + 1}` }),
    )
    await later(50)
    open()
    const settled = await Promise.all(answers)
    const statuses = settled.map((a) => a.statusCode)
    // one in progress and four waiting at most; the others refused at once
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(4)
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(5)
    for (const answer of settled.filter((a) => a.statusCode !== 200)) {
      expect([answer.statusCode, answer.headers['retry-after'], answer.json().data]).toEqual([
        503,
        '1',
        { reason: 'overloaded' },
      ])
    }
    // every turn was given back, a failed answer's too: later requests go through one after another
    gate = Promise.resolve()
    expect((await app.inject({ method: 'GET', url: '/pages/fails' })).statusCode).toBe(500)
    for (let i = 0; i < 6; i++)
      expect((await app.inject({ method: 'GET', url: `/pages/${i}` })).statusCode).toBe(200)
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toContain('admission{work="heavy_answer",state="running",service="demo"} 0')
  })

  it("a heavy route: a client gone while it waited for its turn gives the turn back (the turn's answer was never to be written)", async () => {
    // over a real socket: the connection is closed while the request waits behind the one in progress
    let held: () => void = () => {}
    gate = new Promise<void>((resolve) => (held = resolve))
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    const get = (path: string) => {
      const request = httpRequest(`${address}${path}`)
      const answer = new Promise<number>((resolve, reject) => {
        request.on('response', (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode!))
        })
        request.on('error', reject)
      })
      request.end()
      return { request, answer }
    }
    const running = async () => {
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
      return /admission\{work="heavy_answer",state="running",service="demo"\} (\d+)/.exec(metrics)![1]
    }
    const waiting = async () => {
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
      return /admission\{work="heavy_answer",state="waiting",service="demo"\} (\d+)/.exec(metrics)![1]
    }
    const first = get('/pages/1')
    while ((await running()) !== '1') await later(5)
    const gone = get('/pages/2')
    gone.answer.catch(() => {})
    while ((await waiting()) !== '1') await later(5)
    gone.request.destroy()
    await later(50)
    held()
    expect(await first.answer).toBe(200)
    // the gone client's turn came and went: nothing holds it, the next request has its turn
    while ((await waiting()) !== '0') await later(5)
    await later(50)
    expect(await running()).toBe('0')
    expect(await get('/pages/3').answer).toBe(200)
  })
})
