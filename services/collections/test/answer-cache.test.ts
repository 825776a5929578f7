import { type App, createSql, type Sql } from '@genesis/common'
import { lockWaiters } from '@genesis/common/testing'
import type { Collection, Curation } from '@genesis/wire/collections'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { answersVersion } from '../src/db/answers-version.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { AnswerCache } from '../src/domain/answer-cache.js'
import { freshRead } from '../src/domain/fresh-read.js'
import { call, createCollection, uniqueName, useHarness, useIdentities } from './helpers.js'
import { decide, openReview, publishedCollection } from './review-helpers.js'

// Two replicas of the service on one database, each with its own connections and its own kept answers:
// `h.app` writes, `replica` reads.
const h = useHarness()
let replicaSql: Sql
let replica: App
const [alice] = useIdentities(1)
beforeAll(async () => {
  replicaSql = createSql(h.db.url, { max: 4, settings: COLLECTIONS_DB_SETTINGS })
  replica = await buildApp({ sql: replicaSql, config: h.config })
})
afterAll(async () => {
  await replica.close()
  await replicaSql.end({ timeout: 5 })
})

const list = (app: App, url: string) => call(app, h.committee, 'GET', url)
const names = (body: string) => (JSON.parse(body).data as Collection[]).map((c) => c.name)

describe('kept list answers', () => {
  it('are reused byte for byte while nothing is written', async () => {
    const name = uniqueName('Kept')
    await createCollection(h.app, alice, { name })
    const url = `/v1/collections?q=${encodeURIComponent(name)}`
    const first = await list(replica, url)
    const again = await list(replica, url)
    expect(first.statusCode).toBe(200)
    expect(again.body).toBe(first.body)
    expect(again.headers['content-type']).toBe(first.headers['content-type'])
    // the replica that built nothing yet answers the same bytes
    expect((await list(h.app, url)).body).toBe(first.body)
    expect(names(first.body)).toEqual([name])
  })

  it('show a write through another replica to the very next read', async () => {
    const name = uniqueName('Before')
    const id = await createCollection(h.app, alice, { name })
    const url = `/v1/collections?q=${encodeURIComponent(name)}`
    expect(names((await list(replica, url)).body)).toEqual([name])
    expect(names((await list(replica, url)).body)).toEqual([name])

    const renamed = `${name} renamed`
    const put = await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: renamed })
    expect(put.statusCode).toBe(204)
    expect(names((await list(replica, url)).body)).toEqual([renamed])
    const member = await call(replica, alice, 'GET', `/v1/${alice.address}/collections`)
    expect(names(member.body)).toContain(renamed)

    const deleted = await call(h.app, alice, 'DELETE', `/v1/collections/${id}`)
    expect(deleted.statusCode).toBe(204)
    const after = JSON.parse((await list(replica, url)).body)
    expect(after.data).toEqual([])
    expect(after.pagination.total).toBe(0)
  })

  it("show the committee's queue as it is after each review request and decision", async () => {
    const queue = async () =>
      (JSON.parse((await list(replica, '/v1/curations')).body).data as Curation[]).map((c) => c.id)
    const id = await publishedCollection(h.app, alice)
    const before = await queue()
    const curation = await openReview(h.app, alice, id)
    expect(await queue()).toEqual([...before, curation.id])
    expect((await decide(h.app, h.committee, curation.id, 'approve')).statusCode).toBe(200)
    expect(await queue()).toEqual(before)
  })

  it('show a change made in SQL, outside the service, to the next read', async () => {
    const name = uniqueName('Direct')
    const id = await createCollection(h.app, alice, { name })
    const url = `/v1/collections?q=${encodeURIComponent(name)}`
    expect(names((await list(replica, url)).body)).toEqual([name])
    await h.db.sql`update collections set name = ${`${name} by hand`} where id = ${id}`
    expect(names((await list(replica, url)).body)).toEqual([`${name} by hand`])
  })
})

describe('the answers version', () => {
  it('advances once per committed transaction that writes, and not for a rolled back one', async () => {
    const [a, b] = [await createCollection(h.app, alice), await createCollection(h.app, alice)]
    const start = await answersVersion(h.db.sql)
    await h.db.sql.begin(async (tx) => {
      await tx`update collections set forum_id = 1 where id = ${a}`
      await tx`update collections set forum_id = 2 where id = ${b}`
      await tx`update collections set forum_id = 3 where id = ${a}`
    })
    expect(await answersVersion(h.db.sql)).toBe(start + 1)
    await expect(
      h.db.sql.begin(async (tx) => {
        await tx`update collections set forum_id = 4 where id = ${a}`
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    expect(await answersVersion(h.db.sql)).toBe(start + 1)
    // what a read answers does not advance it
    await list(replica, '/v1/collections')
    expect(await answersVersion(h.db.sql)).toBe(start + 1)
  })

  it('advances for a write after a rolled back savepoint that wrote', async () => {
    const id = await createCollection(h.app, alice)
    const start = await answersVersion(h.db.sql)
    await h.db.sql.begin(async (tx) => {
      await tx
        .savepoint(async (sp) => {
          await sp`update collections set forum_id = 6 where id = ${id}`
          throw new Error('undone')
        })
        .catch(() => undefined)
      await tx`update collections set forum_id = 7 where id = ${id}`
    })
    expect(await answersVersion(h.db.sql)).toBe(start + 1)
  })

  it('is not seen advanced before the write commits', async () => {
    const id = await createCollection(h.app, alice)
    const start = await answersVersion(h.db.sql)
    await h.db.sql.begin(async (tx) => {
      await tx`update collections set forum_id = 5 where id = ${id}`
      expect(await answersVersion(replicaSql)).toBe(start)
    })
    expect(await answersVersion(replicaSql)).toBe(start + 1)
  })
})

describe('AnswerCache', () => {
  it('answers only under the version an answer was kept under, and forgets older ones', () => {
    const cache = new AnswerCache()
    const body = Buffer.from('{"ok":true}')
    cache.set(3, 'k', body)
    expect(cache.get(3, 'k')).toBe(body)
    expect(cache.get(4, 'k')).toBeUndefined()
    expect(cache.get(2, 'k')).toBeUndefined()
    // another answer under the same version joins it (guards `version > this.#version` → `true` or `>=`,
    // which would drop the first, and `version < …` → `<=`, which would refuse the second)
    const other = Buffer.from('{"ok":true,"data":[]}')
    cache.set(3, 'k2', other)
    expect(cache.get(3, 'k')).toBe(body)
    expect(cache.get(3, 'k2')).toBe(other)
    // built by a request that read an older version, after a newer one was seen: not kept, and above all not
    // kept under the newer version (guards `if (version < this.#version) return` → `false`)
    cache.set(2, 'old', Buffer.from('[]'))
    cache.set(2, 'k', Buffer.from('[]'))
    expect(cache.get(2, 'old')).toBeUndefined()
    expect(cache.get(3, 'old')).toBeUndefined()
    expect(cache.get(3, 'k')).toBe(body)
    // a newer version drops everything kept under the older one
    cache.set(4, 'new', Buffer.from('{}'))
    expect(cache.get(3, 'k')).toBeUndefined()
    expect(cache.get(4, 'k')).toBeUndefined()
    expect(cache.get(4, 'new')?.toString()).toBe('{}')
  })
})

describe('freshRead', () => {
  /** A read whose answers the test gives: the value it will answer is fixed when it is sent. */
  function reads() {
    const sent: { value: number; answer: () => void }[] = []
    let value = 0
    const read = () =>
      new Promise<number>((resolve) => {
        const at = value
        sent.push({ value: at, answer: () => resolve(at) })
      })
    return { sent, read, write: () => value++ }
  }

  it('never answers a caller with a read sent before it asked, and shares one read among waiting callers', async () => {
    const r = reads()
    const version = freshRead(r.read)
    const a = version()
    expect(r.sent).toHaveLength(1)
    r.write() // committed after a's read was sent, before b and c ask
    const b = version()
    const c = version()
    expect(r.sent).toHaveLength(1)
    r.sent[0]!.answer()
    expect(await a).toBe(0)
    await Promise.resolve()
    expect(r.sent).toHaveLength(2)
    r.sent[1]!.answer()
    expect(await b).toBe(1)
    expect(await c).toBe(1)
    // nothing under way: the next caller sends its own read
    r.write()
    const d = version()
    expect(r.sent).toHaveLength(3)
    r.sent[2]!.answer()
    expect(await d).toBe(2)
  })

  it('keeps sharing the read under way when a caller asked between the end of one read and the next', async () => {
    // A caller resumed by the first read's end, before the waiting callers' shared read is sent, finds no
    // read under way and sends its own. When that one ends, the shared read is still under way and must stay
    // the one later callers wait behind. Guards `if (underWay === sent) underWay = null` → `if (true)`,
    // which forgets it there and sends a read for each such later caller.
    const r = reads()
    const version = freshRead(r.read)
    const a = version()
    const own = a.then(() => version())
    const waiting = version()
    r.sent[0]!.answer()
    expect(await a).toBe(0)
    // the resumed caller's own read, then the waiting callers' shared one
    expect(r.sent).toHaveLength(3)
    r.sent[1]!.answer()
    expect(await own).toBe(0)
    r.write()
    const later = version()
    expect(r.sent).toHaveLength(3)
    r.sent[2]!.answer()
    expect(await waiting).toBe(0)
    await Promise.resolve()
    expect(r.sent).toHaveLength(4)
    r.sent[3]!.answer()
    expect(await later).toBe(1)
  })

  it('sends the next read after a failed one, and gives the failure only to its own callers', async () => {
    let calls = 0
    const version = freshRead(async () => {
      calls++
      if (calls === 1) throw new Error('database away')
      return calls
    })
    const a = version()
    const b = version()
    await expect(a).rejects.toThrow('database away')
    expect(await b).toBe(2)
  })
})

describe('one build for the requests that wait for the same answer', () => {
  /** A build that ends when told to, counting its calls. */
  const controlled = (reusable = true) => {
    let release!: (body: string) => void
    let fail!: (error: Error) => void
    const built = new Promise<string>((resolve, reject) => {
      release = resolve
      fail = reject
    })
    const calls = { n: 0 }
    const build = async () => {
      calls.n++
      return { body: Buffer.from(await built), reusable }
    }
    return { build, calls, release, fail }
  }

  it('shares a build under way with the requests for the same version and key, and keeps it', async () => {
    const cache = new AnswerCache()
    const { build, calls, release } = controlled()
    const waiting = Array.from({ length: 5 }, () => cache.answer(7, 'k', build))
    const other = cache.answer(7, 'other', build)
    const newer = cache.answer(8, 'k', build)
    release('answer')
    expect((await Promise.all(waiting)).map(String)).toEqual(Array(5).fill('answer'))
    await Promise.all([other, newer])
    // one build for the five, one for the other key, one for the newer version
    expect(calls.n).toBe(3)
    expect(String(cache.get(8, 'k'))).toBe('answer')
    expect(String(await cache.answer(8, 'k', build))).toBe('answer')
    expect(calls.n).toBe(3)
  })

  it('gives an answer that depends on the clock to its own request only', async () => {
    const cache = new AnswerCache()
    const { build, calls, release } = controlled(false)
    const waiting = Array.from({ length: 3 }, () => cache.answer(1, 'k', build))
    release('locked page')
    expect((await Promise.all(waiting)).map(String)).toEqual(Array(3).fill('locked page'))
    expect(calls.n).toBe(3)
    expect(cache.get(1, 'k')).toBeUndefined()
  })

  it('fails the requests that waited for a failed build, and builds again for the next', async () => {
    const cache = new AnswerCache()
    const { build, calls, fail } = controlled()
    const waiting = Array.from({ length: 3 }, () => cache.answer(1, 'k', build))
    fail(new Error('the database did not answer'))
    for (const outcome of await Promise.allSettled(waiting)) expect(outcome.status).toBe('rejected')
    expect(calls.n).toBe(1)
    const again = controlled()
    const next = cache.answer(1, 'k', again.build)
    again.release('now')
    expect(String(await next)).toBe('now')
  })

  it('over HTTP: concurrent requests for a list nobody built yet run its query once', async () => {
    /** Counts the requests that reached the cache. */
    class Counting extends AnswerCache {
      asked = 0
      override answer(...args: Parameters<AnswerCache['answer']>) {
        this.asked++
        return super.answer(...args)
      }
    }
    const answers = new Counting()
    const sql = createSql(h.db.url, { max: 8, settings: COLLECTIONS_DB_SETTINGS })
    const app = await buildApp({ sql, config: h.config, context: { answers } })
    const holder = await h.db.sql.reserve()
    try {
      const name = uniqueName('Shared')
      await createCollection(h.app, alice, { name })
      const url = `/v1/collections?q=${encodeURIComponent(name)}`
      // the list's query waits for this lock: the first build stays under way while the others arrive
      await holder`begin`
      await holder`lock table collections in access exclusive mode`
      const responses = Array.from({ length: 6 }, () => list(app, url))
      for (let i = 0; answers.asked < 6; i++) {
        if (i > 1000) throw new Error('the requests never reached the answer cache')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      await lockWaiters(h.db.sql, 1)
      const [waiting] = await h.db.sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
      expect(waiting!.n).toBe(1)
      await holder`commit`
      const bodies = (await Promise.all(responses)).map((r) => r.body)
      expect(new Set(bodies).size).toBe(1)
      expect(names(bodies[0]!)).toEqual([name])
    } finally {
      await holder`rollback`.catch(() => {})
      holder.release()
      await app.close()
      await sql.end({ timeout: 5 })
    }
  })
})
