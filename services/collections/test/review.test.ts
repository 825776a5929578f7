import type { Collection, Curation } from '@genesis/wire/collections'
import { describe, expect, it } from 'vitest'
import {
  call,
  createCollection,
  createIdentity,
  createItem,
  type Identity,
  randomUUID,
  refusal,
  uniqueName,
  useHarness,
  useIdentities,
} from './helpers.js'
import {
  askReview,
  decide,
  openReview,
  publishedCollection,
  sendItems,
  thirdPartyInReview,
} from './review-helpers.js'

const h = useHarness()
const [alice, bob, carol, member2] = useIdentities(4)

const read = async (who: Identity, id: string) => {
  const res = await call(h.app, who, 'GET', `/v1/collections/${id}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as Collection
}
const list = async (who: Identity, url: string) => {
  const res = await call(h.app, who, 'GET', url)
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as { data: Collection[]; pagination: { total: number } }
}
const queue = async (query = '') => {
  const res = await call(h.app, h.committee, 'GET', `/v1/curations${query}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as { data: Curation[]; pagination: { page: number; limit: number; total: number } }
}

describe('asking for review', () => {
  it('opens a pending review of a published standard collection for its owner or a manager', async () => {
    const id = await publishedCollection(h.app, alice, { managers: [bob.address] })
    const res = await askReview(h.app, bob, id)
    expect(res.statusCode, res.body).toBe(201)
    const curation = res.json().data as Curation
    expect(curation).toMatchObject({
      collection_id: id,
      kind: 'collection',
      status: 'pending',
      item_ids: [],
      requested_by: bob.address,
      reviewed_by: null,
      reviewed_at: null,
      comment: null,
    })
    expect(Date.parse(curation.created_at)).toBeGreaterThan(Date.now() - 60_000)
    // one pending review at a time, whoever asks
    const again = refusal(await askReview(h.app, alice, id), 409, 'review_pending')
    expect(again.data).toEqual({ curation_id: curation.id })
    const history = await call(h.app, alice, 'GET', `/v1/collections/${id}/curations`)
    expect(history.json().data).toEqual([curation])
  })

  it('refuses strangers, minters and the committee (403), unknown (404) and bad ids (400)', async () => {
    const id = await publishedCollection(h.app, alice, { minters: [carol.address] })
    for (const who of [carol, bob, h.committee]) refusal(await askReview(h.app, who, id), 403, 'forbidden')
    refusal(await askReview(h.app, alice, randomUUID()), 404, 'not_found')
    refusal(await call(h.app, alice, 'POST', '/v1/collections/not-a-uuid/curations'), 400, 'bad_request')
    const unsigned = await h.app.inject({ method: 'POST', url: `/v1/collections/${id}/curations` })
    expect(unsigned.statusCode).toBe(401)
  })

  it('refuses an unpublished collection (409 not_published)', async () => {
    const id = await createCollection(h.app, alice)
    await createItem(h.app, alice, id)
    refusal(await askReview(h.app, alice, id), 409, 'not_published')
    const [row] = await h.db.sql`select count(*)::int as n from curations where collection_id = ${id}`
    expect(row?.n).toBe(0)
  })

  it("covers a third party's items waiting for approval, and refuses when none wait", async () => {
    const tp = await thirdPartyInReview(h.app, h.config, alice, 2)
    const first = await openReview(h.app, alice, tp.id)
    expect(first).toMatchObject({ kind: 'items', item_ids: tp.itemIds })
    expect((await decide(h.app, h.committee, first.id, 'approve')).statusCode).toBe(200)
    refusal(await askReview(h.app, alice, tp.id), 409, 'nothing_to_review')
    // new items sent to review: a new review covers those only
    const later = [await createItem(h.app, alice, tp.id)]
    await sendItems(h.app, h.config, alice, tp.id, tp.thirdPartyId, later)
    expect((await openReview(h.app, alice, tp.id)).item_ids).toEqual(later)
  })

  it('refuses a collection that is already approved (409 already_approved), allows one after a rejection', async () => {
    const id = await publishedCollection(h.app, alice)
    const first = await openReview(h.app, alice, id)
    expect((await decide(h.app, h.committee, first.id, 'reject')).statusCode).toBe(200)
    const second = await openReview(h.app, alice, id)
    expect((await decide(h.app, h.committee, second.id, 'approve')).statusCode).toBe(200)
    refusal(await askReview(h.app, alice, id), 409, 'already_approved')
    const history = (await call(h.app, alice, 'GET', `/v1/collections/${id}/curations`)).json()
      .data as Curation[]
    expect(history.map((c) => [c.id, c.status])).toEqual([
      [second.id, 'approved'],
      [first.id, 'rejected'],
    ])
  })
})

describe("the committee's queue", () => {
  it('lists pending reviews oldest first, paged and searchable by collection name', async () => {
    const tag = `Queue ${randomUUID().slice(0, 8)}`
    const ids: string[] = []
    for (let i = 0; i < 3; i++)
      ids.push(await publishedCollection(h.app, alice, { name: `${tag} ${i} ${uniqueName('n')}` }))
    const curations: Curation[] = []
    for (const id of ids) curations.push(await openReview(h.app, alice, id))
    // decided ones leave the queue
    const decidedId = await publishedCollection(h.app, alice, { name: `${tag} decided` })
    const decided = await openReview(h.app, alice, decidedId)
    expect((await decide(h.app, h.committee, decided.id, 'reject')).statusCode).toBe(200)

    const q = encodeURIComponent(tag.toLowerCase())
    const all = await queue(`?q=${q}`)
    expect(all.data.map((c) => c.id)).toEqual(curations.map((c) => c.id))
    expect(all.data[0]!.collection_name).toContain(tag)
    expect(all.pagination).toMatchObject({ page: 1, limit: 20, total: 3 })
    const second = await queue(`?q=${q}&page=2&limit=2`)
    expect(second.data.map((c) => c.id)).toEqual([curations[2]!.id])
    expect(second.pagination.total).toBe(3)
    // past the last page: empty, with the total still told
    const past = await queue(`?q=${q}&page=5&limit=2`)
    expect(past.data).toEqual([])
    expect(past.pagination.total).toBe(3)
    // without a search, the queue holds them in the same order among the others
    const whole = await queue('?limit=100')
    const positions = curations.map((c) => whole.data.findIndex((d) => d.id === c.id))
    expect(positions.every((p) => p >= 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    expect(whole.data.every((c) => c.status === 'pending')).toBe(true)
  })

  it('is for the committee only (403) and refuses bad queries (400)', async () => {
    refusal(await call(h.app, alice, 'GET', '/v1/curations'), 403, 'forbidden')
    for (const query of ['?limit=0', '?limit=101', '?page=0', '?pageSize=5', '?q=', '?status=approved'])
      refusal(await call(h.app, h.committee, 'GET', `/v1/curations${query}`), 400, 'bad_request')
  })
})

describe('deciding a review', () => {
  it('approves: reviewed_at set, is_approved true, the decision and comment recorded', async () => {
    const id = await publishedCollection(h.app, alice)
    const curation = await openReview(h.app, alice, id)
    const res = await decide(h.app, h.committee, curation.id, 'approve', {
      comment: 'Lovely hats.\nApproved.',
    })
    expect(res.statusCode, res.body).toBe(200)
    const decided = res.json().data as Curation
    expect(decided).toMatchObject({
      id: curation.id,
      status: 'approved',
      reviewed_by: h.committee.address,
      comment: 'Lovely hats.\nApproved.',
    })
    const c = await read(alice, id)
    expect(c.is_approved).toBe(true)
    expect(c.reviewed_at).toBe(decided.reviewed_at)
    // approving twice, or rejecting an approved review: 409, nothing changes
    const twice = refusal(await decide(h.app, h.committee, curation.id, 'approve'), 409, 'already_decided')
    expect(twice.data).toMatchObject({ status: 'approved' })
    refusal(await decide(h.app, h.committee, curation.id, 'reject'), 409, 'already_decided')
    expect(await read(alice, id)).toEqual(c)
  })

  it('rejects: reviewed_at set, is_approved false; the rejected review cannot be approved', async () => {
    const tp = await thirdPartyInReview(h.app, h.config, alice, 1)
    const first = await openReview(h.app, alice, tp.id)
    expect((await decide(h.app, h.committee, first.id, 'approve')).statusCode).toBe(200)
    expect((await read(alice, tp.id)).is_approved).toBe(true)
    await sendItems(h.app, h.config, alice, tp.id, tp.thirdPartyId, [await createItem(h.app, alice, tp.id)])
    const second = await openReview(h.app, alice, tp.id)
    const res = await decide(h.app, h.committee, second.id, 'reject', {})
    expect(res.statusCode, res.body).toBe(200)
    const c = await read(alice, tp.id)
    expect(c.is_approved).toBe(false)
    expect(c.reviewed_at).toBe((res.json().data as Curation).reviewed_at)
    refusal(await decide(h.app, h.committee, second.id, 'approve'), 409, 'already_decided')
  })

  it("gives a rejected third party's items back: changed, sent again, reviewed again", async () => {
    const tp = await thirdPartyInReview(h.app, h.config, alice, 2)
    const [kept, rejectedLater] = tp.itemIds as [string, string]
    const first = await openReview(h.app, alice, tp.id)
    expect(
      (await decide(h.app, h.committee, first.id, 'reject', { comment: 'Fix the textures' })).statusCode,
    ).toBe(200)
    // no longer waiting: nothing to review, approval data has nothing, the items can be changed
    refusal(await askReview(h.app, alice, tp.id), 409, 'nothing_to_review')
    refusal(
      await call(h.app, h.committee, 'GET', `/v1/collections/${tp.id}/approvalData`),
      409,
      'not_published',
    )
    const change = await call(h.app, alice, 'PUT', `/v1/items/${kept}`, {
      id: kept,
      collection_id: tp.id,
      name: 'Fixed textures',
      type: 'wearable',
      content_hash: `0x${'ab'.repeat(32)}`,
    })
    expect(change.statusCode, change.body).toBe(204)
    await sendItems(h.app, h.config, alice, tp.id, tp.thirdPartyId, [kept, rejectedLater])
    const second = await openReview(h.app, alice, tp.id)
    expect(second.item_ids).toEqual([kept, rejectedLater])
    expect((await decide(h.app, h.committee, second.id, 'approve')).statusCode).toBe(200)
    expect((await read(alice, tp.id)).is_approved).toBe(true)
    // approved items stay frozen
    refusal(await call(h.app, alice, 'DELETE', `/v1/items/${kept}`), 409, 'item_published')
  })

  it('is for the committee only (403), 404 for an unknown review, 400 for bad input', async () => {
    const id = await publishedCollection(h.app, alice, { managers: [bob.address] })
    const curation = await openReview(h.app, alice, id)
    for (const who of [alice, bob, carol]) {
      refusal(await decide(h.app, who, curation.id, 'approve'), 403, 'forbidden')
      refusal(await decide(h.app, who, curation.id, 'reject'), 403, 'forbidden')
    }
    refusal(await decide(h.app, h.committee, randomUUID(), 'approve'), 404, 'not_found')
    refusal(await call(h.app, h.committee, 'POST', '/v1/curations/123/approve', {}), 400, 'bad_request')
    for (const body of [
      { comment: '' },
      { comment: 'x'.repeat(2001) },
      { comment: 'bell\u0007' },
      { comment: 42 },
      { comment: 'ok', status: 'approved' },
    ]) {
      const bad = refusal(await decide(h.app, h.committee, curation.id, 'approve', body), 400, 'bad_request')
      expect(bad.data?.errors?.length).toBeGreaterThan(0)
    }
    // nothing was decided by the refused requests
    expect((await read(alice, id)).reviewed_at).toBeNull()
    expect(
      (await decide(h.app, h.committee, curation.id, 'approve', { comment: 'x'.repeat(2000) })).statusCode,
    ).toBe(200)
  })
})

describe('the forum thread', () => {
  const forum = (n: number) => ({ forum_link: `https://forum.example.org/t/review/${n}`, forum_id: n })
  const put = (who: Identity, id: string, body: unknown) =>
    call(h.app, who, 'PUT', `/v1/collections/${id}/forum`, body)

  it('is set once by the owner or a manager, then only the committee changes it', async () => {
    const id = await publishedCollection(h.app, alice, { managers: [bob.address] })
    expect((await put(bob, id, forum(7))).statusCode).toBe(204)
    expect(await read(alice, id)).toMatchObject(forum(7))
    const again = refusal(await put(alice, id, forum(8)), 409, 'forum_already_set')
    expect(again.data).toMatchObject(forum(7))
    refusal(await put(bob, id, forum(7)), 409, 'forum_already_set')
    expect((await put(h.committee, id, forum(9))).statusCode).toBe(204)
    expect(await read(h.committee, id)).toMatchObject(forum(9))
    // the public view does not show it
    const seen = await read(carol, id)
    expect(seen).not.toHaveProperty('forum_link')
    expect(seen).not.toHaveProperty('forum_id')
  })

  it('is allowed before publication and during a lock', async () => {
    const id = await createCollection(h.app, alice)
    expect((await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)).statusCode).toBe(200)
    expect((await put(alice, id, forum(11))).statusCode).toBe(204)
  })

  it('refuses strangers and minters (403), unknown collections (404) and bad bodies (400)', async () => {
    const id = await publishedCollection(h.app, alice, { minters: [member2.address] })
    refusal(await put(carol, id, forum(1)), 403, 'forbidden')
    refusal(await put(member2, id, forum(1)), 403, 'forbidden')
    refusal(await put(alice, randomUUID(), forum(1)), 404, 'not_found')
    for (const body of [
      {},
      { forum_link: 'ftp://forum.example.org/t/1', forum_id: 1 },
      { forum_link: 'not a link', forum_id: 1 },
      { forum_link: `https://forum.example.org/${'a'.repeat(2048)}`, forum_id: 1 },
      { forum_link: 'https://forum.example.org/t/1', forum_id: 0 },
      { forum_link: 'https://forum.example.org/t/1', forum_id: 1.5 },
      { forum_link: 'https://forum.example.org/t/1', forum_id: 2_147_483_648 },
      { forum_link: 'https://forum.example.org/t/1', forum_id: '1' },
      { ...forum(1), extra: true },
    ])
      refusal(await put(alice, id, body), 400, 'bad_request')
    expect(await read(alice, id)).toMatchObject({ forum_link: null, forum_id: null })
  })
})

describe("a collection's reviews", () => {
  it('are shown to its members and the committee; 403 for others once published, 404 before', async () => {
    const id = await publishedCollection(h.app, alice, { minters: [member2.address] })
    const curation = await openReview(h.app, alice, id)
    for (const who of [alice, member2, h.committee]) {
      const res = await call(h.app, who, 'GET', `/v1/collections/${id}/curations`)
      expect(res.json().data.map((c: Curation) => c.id)).toEqual([curation.id])
    }
    refusal(await call(h.app, carol, 'GET', `/v1/collections/${id}/curations`), 403, 'forbidden')
    const hidden = await createCollection(h.app, alice)
    refusal(await call(h.app, carol, 'GET', `/v1/collections/${hidden}/curations`), 404, 'not_found')
    expect((await call(h.app, alice, 'GET', `/v1/collections/${hidden}/curations`)).json().data).toEqual([])
  })
})

describe('list filters for review work', () => {
  it('filter by is_approved, reviewed and pending_review, for the committee and for members', async () => {
    const owner = await createIdentity()
    const tag = `Filter ${randomUUID().slice(0, 8)}`
    const [approved, rejected, pending, untouched] = await Promise.all(
      ['approved', 'rejected', 'pending', 'untouched'].map((s) =>
        publishedCollection(h.app, owner, { name: `${tag} ${s}` }),
      ),
    )
    const r1 = await openReview(h.app, owner, approved!)
    await decide(h.app, h.committee, r1.id, 'approve')
    const r2 = await openReview(h.app, owner, rejected!)
    await decide(h.app, h.committee, r2.id, 'reject')
    await openReview(h.app, owner, pending!)

    const cases: [string, string[]][] = [
      ['is_approved=true', [approved!]],
      ['is_approved=false', [untouched!, pending!, rejected!]],
      ['reviewed=true', [rejected!, approved!]],
      ['reviewed=false', [untouched!, pending!]],
      ['pending_review=true', [pending!]],
      ['pending_review=false', [untouched!, rejected!, approved!]],
      ['reviewed=true&is_approved=false', [rejected!]],
    ]
    const q = encodeURIComponent(tag)
    for (const [filter, expected] of cases) {
      const set = new Set(expected)
      // committee list with a search, a member's own list, and the public list
      for (const [who, url] of [
        [h.committee, `/v1/collections?q=${q}&${filter}`],
        [owner, `/v1/${owner.address}/collections?${filter}`],
        [carol, `/v1/collections?q=${q}&${filter}`],
      ] as const) {
        const page = await list(who, url)
        expect(new Set(page.data.map((c) => c.id)), `${url}`).toEqual(set)
        expect(page.pagination.total).toBe(expected.length)
      }
    }
  })

  it('unnarrowed lists count their total from collection_counts, in agreement with the table', async () => {
    for (const filter of [
      'is_approved=true',
      'reviewed=true',
      'pending_review=true',
      'pending_review=false',
    ]) {
      const page = await list(h.committee, `/v1/collections?${filter}&limit=1`)
      const column =
        filter === 'reviewed=true'
          ? 'reviewed_at is not null'
          : filter.replace('=true', '').replace('=false', '')
      const negate = filter.endsWith('=false')
      const [row] = await h.db.sql.unsafe<{ n: number }[]>(
        `select count(*)::int as n from collections where ${negate ? 'not ' : ''}(${column})`,
      )
      expect(page.pagination.total, filter).toBe(row!.n)
    }
  })

  it('refuses values that are not booleans (400)', async () => {
    for (const query of ['is_approved=maybe', 'reviewed=2', 'pending_review='])
      refusal(await call(h.app, h.committee, 'GET', `/v1/collections?${query}`), 400, 'bad_request')
  })
})

describe('a collection from creation to approval', () => {
  it('walks create, items, lock, terms, publish, review request, approval, and shows it everywhere', async () => {
    const owner = await createIdentity()
    const stranger = await createIdentity()
    const name = uniqueName('Walkthrough')
    const id = await createCollection(h.app, owner, { name })
    const itemIds = [await createItem(h.app, owner, id), await createItem(h.app, owner, id)]
    expect((await call(h.app, owner, 'POST', `/v1/collections/${id}/lock`)).statusCode).toBe(200)
    const tos = await call(h.app, owner, 'POST', `/v1/collections/${id}/tos`, {
      email: 'owner@example.com',
      event: 'publish_collection_tos',
      hashes: [(await read(owner, id)).contract_address!.padEnd(66, '0')],
    })
    expect(tos.statusCode, tos.body).toBe(204)
    refusal(await askReview(h.app, owner, id), 409, 'not_published')
    expect((await call(h.app, owner, 'POST', `/v1/collections/${id}/publish`, { itemIds })).statusCode).toBe(
      204,
    )

    const forumRes = await call(h.app, owner, 'PUT', `/v1/collections/${id}/forum`, {
      forum_link: 'https://forum.example.org/t/walkthrough/42',
      forum_id: 42,
    })
    expect(forumRes.statusCode).toBe(204)
    const curation = await openReview(h.app, owner, id)
    const waiting = await list(
      h.committee,
      `/v1/collections?q=${encodeURIComponent(name)}&pending_review=true`,
    )
    expect(waiting.data.map((c) => c.id)).toEqual([id])
    const inQueue = await queue(`?q=${encodeURIComponent(name)}`)
    expect(inQueue.data.map((c) => c.id)).toEqual([curation.id])

    const approval = await decide(h.app, h.committee, curation.id, 'approve', { comment: 'Welcome aboard' })
    expect(approval.statusCode, approval.body).toBe(200)
    const reviewedAt = (approval.json().data as Curation).reviewed_at
    expect(reviewedAt).not.toBeNull()
    expect((await queue(`?q=${encodeURIComponent(name)}`)).data).toEqual([])

    const approved = { id, is_published: true, is_approved: true, reviewed_at: reviewedAt }
    // the owner's views
    expect(await read(owner, id)).toMatchObject({ ...approved, forum_id: 42, lock: null })
    const own = await list(owner, `/v1/${owner.address}/collections?is_approved=true`)
    expect(own.data).toEqual([expect.objectContaining(approved)])
    // the committee's views
    expect(await read(h.committee, id)).toMatchObject({
      ...approved,
      forum_link: 'https://forum.example.org/t/walkthrough/42',
    })
    const committee = await list(
      h.committee,
      `/v1/collections?q=${encodeURIComponent(name)}&is_approved=true&reviewed=true`,
    )
    expect(committee.data).toEqual([expect.objectContaining({ ...approved, forum_id: 42 })])
    expect(
      (await list(h.committee, `/v1/collections?q=${encodeURIComponent(name)}&pending_review=true`)).data,
    ).toEqual([])
    // the public views
    const seen = await read(stranger, id)
    expect(seen).toMatchObject(approved)
    expect(seen).not.toHaveProperty('forum_link')
    const publicList = await list(stranger, `/v1/collections?q=${encodeURIComponent(name)}&is_approved=true`)
    expect(publicList.data).toEqual([expect.objectContaining(approved)])
    expect(publicList.data[0]).not.toHaveProperty('salt')
  })
})

describe('every move is signed', () => {
  it('answers 401 to each review route without a signature, before anything else', async () => {
    const id = randomUUID()
    for (const [method, url] of [
      ['POST', `/v1/collections/${id}/curations`],
      ['GET', `/v1/collections/${id}/curations`],
      ['GET', '/v1/curations'],
      ['POST', `/v1/curations/${id}/approve`],
      ['POST', `/v1/curations/${id}/reject`],
      ['PUT', `/v1/collections/${id}/forum`],
    ] as const) {
      const res = await h.app.inject({ method, url, payload: method === 'GET' ? undefined : {} })
      expect(res.statusCode, `${method} ${url}`).toBe(401)
      expect(res.json()).toMatchObject({ ok: false, code: 'unauthorized' })
    }
  })
})

describe('the pending_review column', () => {
  it('agrees with the pending curation records after everything above', async () => {
    const [row] = await h.db.sql<{ n: number }[]>`
      select count(*)::int as n from collections c
      where c.pending_review <> exists (select 1 from curations cu where cu.collection_id = c.id and cu.status = 'pending')`
    expect(row!.n).toBe(0)
    const [pending] = await h.db.sql<
      { n: number }[]
    >`select count(*)::int as n from collections where pending_review`
    expect(pending!.n).toBeGreaterThan(0)
  })
})

describe('OpenAPI', () => {
  it('documents the review routes and the new list filters', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: unknown }>>
    }
    expect(doc.paths['/v1/collections/{id}/curations']).toHaveProperty('post')
    expect(doc.paths['/v1/collections/{id}/curations']).toHaveProperty('get')
    expect(doc.paths['/v1/curations']).toHaveProperty('get')
    expect(doc.paths['/v1/curations/{id}/approve']?.post?.requestBody).toBeDefined()
    expect(doc.paths['/v1/curations/{id}/reject']?.post?.requestBody).toBeDefined()
    expect(doc.paths['/v1/collections/{id}/forum']).toHaveProperty('put')
    const names = doc.paths['/v1/collections']?.get?.parameters?.map((p) => p.name)
    expect(names).toEqual(expect.arrayContaining(['is_approved', 'reviewed', 'pending_review']))
  })
})
