import { startTestService, type TestService } from '@genesis/common/testing'
import type { Collection } from '@genesis/wire/collections'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { isLockActive } from '../src/domain/views.js'
import { migrationsDir } from '../src/paths.js'
import { call, createCollection, createIdentity, type Identity, keysReady, refusal } from './helpers.js'

// The lock's end to the millisecond, on the service's own clock (ctx.now), which this file moves by hand.
// Signatures are still checked against the real time.

const TTL_S = 60
const start = new Date('2031-03-01T12:00:00.000Z')
let clock = start
let h: TestService
let alice: Identity

beforeAll(async () => {
  const config = loadConfig({ LOCK_TTL_S: String(TTL_S) })
  h = await startTestService({
    migrationsDir,
    settings: COLLECTIONS_DB_SETTINGS,
    build: async (sql) => {
      await keysReady(sql, config)
      return buildApp({ sql, config, context: { now: () => clock } })
    },
  })
  alice = await createIdentity()
})
afterAll(() => h.close())

const at = (msAfterStart: number) => new Date(start.getTime() + msAfterStart)
const rename = (id: string, name: string) => call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name })
const lockOf = async (id: string) =>
  ((await call(h.app, alice, 'GET', `/v1/collections/${id}`)).json().data as Collection).lock

describe('the lock ends exactly LOCK_TTL_S after it starts', () => {
  it('refuses changes until the last millisecond, naming the end, and allows them from the end on', async () => {
    clock = start
    const id = await createCollection(h.app, alice)
    const lock = await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)
    expect(lock.json()).toEqual({ ok: true, data: start.toISOString() })

    // Guards lockExpiry's arithmetic (`lock + ttl * 1000` → `lock - ttl * 1000`, `ttl / 1000`): the 423
    // names the end, and a client waits until then.
    const end = at(TTL_S * 1000).toISOString()
    clock = at(1)
    const refused = refusal(await rename(id, 'Renamed while locked'), 423, 'collection_locked')
    expect(refused.data?.lock_expires_at).toBe(end)

    // Guards isLockActive's `>` (→ `<`, or a lock that never ends): one millisecond before the end it holds.
    clock = at(TTL_S * 1000 - 1)
    expect(await lockOf(id)).toBe(start.toISOString())
    expect(
      refusal(await rename(id, 'Renamed at the last ms'), 423, 'collection_locked').data?.lock_expires_at,
    ).toBe(end)
    // A second lock request inside the lock answers the running lock, not a new one.
    expect((await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)).json().data).toBe(
      start.toISOString(),
    )

    // Guards isLockActive's `>` (→ `>=`): at the end itself the lock is over.
    clock = at(TTL_S * 1000)
    expect(await lockOf(id)).toBeNull()
    expect((await rename(id, 'Renamed at the end')).statusCode).toBe(204)
    // Guards lockForPublication's "keep the active lock": an ended lock is replaced by a new one from now.
    const again = await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)
    expect(again.json()).toEqual({ ok: true, data: clock.toISOString() })
  })
})

describe('isLockActive', () => {
  it('is false without a lock, true before lock + ttl, false from lock + ttl on', () => {
    const lock = new Date('2031-01-01T00:00:00.000Z')
    const ms = (n: number) => new Date(lock.getTime() + n)
    expect(isLockActive(null, TTL_S, ms(0))).toBe(false)
    expect(isLockActive(lock, TTL_S, ms(0))).toBe(true)
    expect(isLockActive(lock, TTL_S, ms(TTL_S * 1000 - 1))).toBe(true)
    expect(isLockActive(lock, TTL_S, ms(TTL_S * 1000))).toBe(false)
    expect(isLockActive(lock, TTL_S, ms(-1))).toBe(true)
  })
})
