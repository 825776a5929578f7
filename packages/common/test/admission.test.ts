import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Admission, AdmissionRefused, type App, createApp, migrate, ok } from '../src/index.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js'
import { emptyMigrations } from './fixtures.js'

/** A promise and the function that settles it: work a test finishes when it chooses. */
function gate() {
  let open = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

describe('Admission', () => {
  it('runs at most `limit` at once, the next in arrival order as each finishes', async () => {
    const admission = new Admission({ name: 'renders', limit: 2, queue: 10, waitMs: 10_000 })
    const gates = Array.from({ length: 5 }, gate)
    const started: number[] = []
    let running = 0
    let most = 0
    const runs = gates.map((g, i) =>
      admission.run(async () => {
        started.push(i)
        running++
        most = Math.max(most, running)
        await g.opened
        running--
        return i
      }),
    )
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual([0, 1])
    expect([admission.inFlight, admission.queued]).toEqual([2, 3])
    // finishing the second lets the third in, not the last
    gates[1]!.open()
    await runs[1]
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual([0, 1, 2])
    for (const g of gates) g.open()
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4])
    expect(most).toBe(2)
    expect([admission.inFlight, admission.queued]).toEqual([0, 0])
  })

  it('refuses at once past the queue, with a 503 that says when to come back', async () => {
    const admission = new Admission({ name: 'renders', limit: 1, queue: 1, waitMs: 10_000, retryAfterS: 3 })
    const g = gate()
    const first = admission.run(() => g.opened)
    const second = admission.run(() => 'second')
    const refused = await admission.run(() => 'third').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(AdmissionRefused)
    expect(refused).toMatchObject({
      statusCode: 503,
      code: 'overloaded',
      retryAfterS: 3,
      data: { work: 'renders', limit: 1, queue: 1, reason: 'queue_full', retry_after_s: 3 },
    })
    g.open()
    await first
    expect(await second).toBe('second')
  })

  it('refuses a request that waited too long, and forgets it: the turn goes to the next', async () => {
    const admission = new Admission({ name: 'answers', limit: 1, queue: 5, waitMs: 50 })
    const g = gate()
    const first = admission.run(() => g.opened)
    const late = admission.run(() => 'late').catch((error: unknown) => error)
    expect(await late).toMatchObject({ code: 'overloaded', data: { reason: 'waited_too_long' } })
    expect(admission.queued).toBe(0)
    const next = admission.run(() => 'next')
    g.open()
    await first
    expect(await next).toBe('next')
    expect(admission.inFlight).toBe(0)
  })

  it('gives the turn back when the work throws', async () => {
    const admission = new Admission({ name: 'answers', limit: 1, queue: 0, waitMs: 0 })
    await expect(
      admission.run(() => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(admission.inFlight).toBe(0)
    expect(await admission.run(() => 'after')).toBe('after')
  })
})

describe('refusals that pass', () => {
  let db: TestDatabase
  let app: App
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql, emptyMigrations())
    app = await createApp({ name: 'busy', version: '1', sql: db.sql, rateLimitMax: 1 })
    const admission = new Admission({ name: 'renders', limit: 1, queue: 0, waitMs: 0, retryAfterS: 2 })
    const g = gate()
    void admission.run(() => g.opened)
    app.get('/busy', async () => admission.run(() => ok(1)))
    app.get('/x', async () => ok(1))
    await app.ready()
  })
  afterAll(async () => {
    await app?.close()
    await db?.drop()
  })

  it('answers an admission refusal 503 in the envelope with Retry-After', async () => {
    const response = await app.inject({ method: 'GET', url: '/busy' })
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('2')
    expect(response.json()).toMatchObject({ ok: false, code: 'overloaded', data: { retry_after_s: 2 } })
  })

  it('answers the rate limit 429 in the envelope with Retry-After, in the header and the data', async () => {
    await app.inject({ method: 'GET', url: '/x' })
    const response = await app.inject({ method: 'GET', url: '/x' })
    expect(response.statusCode).toBe(429)
    const seconds = Number(response.headers['retry-after'])
    expect(seconds).toBeGreaterThanOrEqual(1)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(response.json()).toMatchObject({
      ok: false,
      code: 'too_many_requests',
      data: { limit: 1, retry_after_s: seconds },
    })
  })
})
