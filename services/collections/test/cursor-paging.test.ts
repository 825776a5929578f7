import { createIdentity, type Identity } from '@genesis/common/testing'
import type { Collection } from '@genesis/wire/collections'
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeCursor } from '../src/domain/cursor.js'
import { call, createCollection, refusal, useHarness, useIdentities } from './helpers.js'
import { seedCollections } from './seed.js'

// Deep pages by keyset: `cursor` (the previous page's pagination.next_cursor) reads the page after that
// page's last row, whatever its depth; `page` stays, up to 10,000 rows deep.

const h = useHarness()
const [carol] = useIdentities(1)
beforeAll(async () => {
  await seedCollections(h.db.sql, 230)
  // ties: rows created in the same microsecond are ordered by id
  await h.db.sql`update collections set created_at = '2026-01-01T00:00:00.123456Z' where name like '%7'`
})

type Page = {
  data: Collection[]
  pagination: { page: number; total: number; pages: number; next_cursor: string | null }
}

const get = async (who: Identity, url: string): Promise<Page> => {
  const res = await call(h.app, who, 'GET', url)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Every page of a list, by `page`, and by following next_cursor. */
async function bothWays(who: Identity, query: string, limit: number) {
  const byPage: string[] = []
  const first = await get(who, `/v1/collections?${query}&limit=${limit}`)
  for (let page = 1; page <= first.pagination.pages; page++) {
    const body = await get(who, `/v1/collections?${query}&limit=${limit}&page=${page}`)
    byPage.push(...body.data.map((c) => c.id))
  }
  const byCursor: string[] = []
  const numbers: number[] = []
  let body = first
  for (;;) {
    byCursor.push(...body.data.map((c) => c.id))
    numbers.push(body.pagination.page)
    expect(body.pagination.total).toBe(first.pagination.total)
    if (body.pagination.next_cursor === null) break
    body = await get(who, `/v1/collections?${query}&limit=${limit}&cursor=${body.pagination.next_cursor}`)
  }
  return { byPage, byCursor, numbers, total: first.pagination.total }
}

describe('cursor paging', () => {
  it('reads the same rows in the same order as page by page, numbering its pages, through ties', async () => {
    for (const [who, query] of [
      [h.committee, 'x=1'],
      [carol, 'x=1'],
      [h.committee, 'q=racer'],
      [carol, 'q=RACER'],
      [h.committee, 'is_published=false'],
      [h.committee, 'q=7'],
    ] as const) {
      for (const limit of [7, 20, 100]) {
        const q = query === 'x=1' ? '' : query
        const { byPage, byCursor, numbers, total } = await bothWays(who, q, limit)
        expect(byCursor, `${query} limit ${limit}`).toEqual(byPage)
        expect(new Set(byCursor).size).toBe(total)
        expect(numbers).toEqual(
          Array.from({ length: Math.max(1, Math.ceil(total / limit)) }, (_, i) => i + 1),
        )
      }
    }
  })

  it('finds what a case-insensitive substring finds, for rare and common terms (each read its own way)', async () => {
    for (const term of ['racer', 'RACER T', ' ', 'e', 'zzz', '7', 'er d']) {
      for (const [who, published] of [
        [h.committee, null],
        [carol, true],
      ] as const) {
        const truth = await h.db.sql<{ id: string }[]>`
          select id from collections
          where strpos(lower(name), lower(${term})) > 0 and (${published}::boolean is null or is_published)
          order by created_at desc, id`
        for (const limit of [5, 100]) {
          const { byPage, byCursor, total } = await bothWays(who, `q=${encodeURIComponent(term)}`, limit)
          expect(byCursor, `${term} ${limit}`).toEqual(truth.map((r) => r.id))
          expect(byPage).toEqual(byCursor)
          expect(total).toBe(truth.length)
        }
      }
    }
  })

  it("pages a member's collections by cursor too", async () => {
    const dave = await createIdentity()
    for (let i = 0; i < 5; i++) await createCollection(h.app, dave, { name: `Dave cursor ${i}` })
    const first = await get(dave, `/v1/${dave.address}/collections?limit=2`)
    const second = await get(
      dave,
      `/v1/${dave.address}/collections?limit=2&cursor=${first.pagination.next_cursor}`,
    )
    const third = await get(
      dave,
      `/v1/${dave.address}/collections?limit=2&cursor=${second.pagination.next_cursor}`,
    )
    expect([...first.data, ...second.data, ...third.data].map((c) => c.name)).toEqual(
      [4, 3, 2, 1, 0].map((i) => `Dave cursor ${i}`),
    )
    expect(third.pagination).toMatchObject({ page: 3, total: 5, next_cursor: null })
  })

  it('neither repeats nor skips a row when collections are made between its pages', async () => {
    const first = await get(h.committee, '/v1/collections?q=racer&limit=5')
    for (let i = 0; i < 3; i++) await createCollection(h.app, carol, { name: `Racer newcomer ${i}` })
    const seen = first.data.map((c) => c.id)
    let cursor = first.pagination.next_cursor
    while (cursor !== null) {
      const body = await get(h.committee, `/v1/collections?q=racer&limit=5&cursor=${cursor}`)
      seen.push(...body.data.map((c) => c.id))
      cursor = body.pagination.next_cursor
    }
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.length).toBe(first.pagination.total)
  })

  it('has no next page past a last page that is full', async () => {
    const all = await get(h.committee, '/v1/collections?q=racer&limit=100')
    const exact = all.pagination.total
    const body = await get(h.committee, `/v1/collections?q=racer&limit=${exact}`)
    expect(body.data).toHaveLength(exact)
    expect(body.pagination.next_cursor).toBeNull()
  })
})

describe('the depth of page', () => {
  it('reads up to 10,000 rows deep, and past that refuses naming the cursor', async () => {
    expect((await call(h.app, h.committee, 'GET', '/v1/collections?page=100&limit=100')).statusCode).toBe(200)
    expect((await call(h.app, h.committee, 'GET', '/v1/collections?page=10000&limit=1')).statusCode).toBe(200)
    for (const url of [
      '/v1/collections?page=101&limit=100',
      '/v1/collections?page=501',
      `/v1/${carol.address}/collections?page=501`,
    ]) {
      const body = refusal(
        await call(h.app, url.includes(carol.address) ? carol : h.committee, 'GET', url),
        400,
        'page_too_deep',
      )
      expect(body.error).toMatch(/cursor/)
      expect(body.data?.errors?.[0]?.path).toBe('query.page')
    }
    refusal(await call(h.app, h.committee, 'GET', '/v1/collections?page=10001&limit=1'), 400, 'page_too_deep')
  })
})

describe('a cursor the service did not give', () => {
  it('is a 400 naming the cursor, whatever it holds', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const id = '5c0f7a4e-3b0a-4e59-9a51-0d7c1b2f8a10'
    for (const cursor of [
      'garbage',
      b64({}),
      b64(['2026-01-01T00:00:00.000000Z', id]),
      b64(['2026-01-01T00:00:00Z', id, 2]),
      b64(['2026-13-45T00:00:00.000000Z', id, 2]),
      b64(['2026-01-01T00:00:00.000000Z', id.toUpperCase(), 2]),
      b64(['2026-01-01T00:00:00.000000Z', "x' or 1=1 --", 2]),
      b64(['2026-01-01T00:00:00.000000Z', id, 1]),
      b64(['2026-01-01T00:00:00.000000Z', id, 2.5]),
      b64(['2026-01-01T00:00:00.000000Z', id, '2']),
    ]) {
      const body = refusal(await call(h.app, h.committee, 'GET', `/v1/collections?cursor=${cursor}`), 400)
      expect(body.data?.errors?.[0]?.path, cursor).toBe('query.cursor')
    }
    refusal(await call(h.app, h.committee, 'GET', '/v1/collections?cursor=a%2Bb'), 400)
    const valid = encodeCursor({ after: { createdAt: '2026-01-01T00:00:00.000000Z', id }, page: 2 })
    expect((await call(h.app, h.committee, 'GET', `/v1/collections?cursor=${valid}`)).statusCode).toBe(200)
    const both = refusal(await call(h.app, h.committee, 'GET', `/v1/collections?cursor=${valid}&page=2`), 400)
    expect(both.data?.errors?.[0]?.path).toBe('query.page')
  })
})
