import { requireRealPostgres } from '@genesis/common/testing'
import type { Curation } from '@genesis/wire/collections'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keptAndCountedByReview } from './counts.js'
import { call, createIdentity, type Harness, type Identity, setup } from './helpers.js'
import { askReview, decide, openReview, publishedCollection } from './review-helpers.js'

const MEMBERS = 10
let h: Harness
let committee: Identity[]
beforeAll(async () => {
  committee = await Promise.all(Array.from({ length: MEMBERS }, () => createIdentity()))
  h = await setup({ env: { COMMITTEE_ADDRESSES: committee.map((m) => m.address).join(',') } })
})
afterAll(() => h.close())

const identities = (n: number) => Promise.all(Array.from({ length: n }, () => createIdentity()))

describe('committee members deciding the same review at once', () => {
  it('records exactly one decision; every other member gets 409 already_decided', async (ctx) => {
    // On the PGlite stand-in every request runs one after another: nothing would race.
    requireRealPostgres(ctx, h.db)
    const owner = await createIdentity()
    for (let round = 0; round < 6; round++) {
      const id = await publishedCollection(h.app, owner)
      const curation = await openReview(h.app, owner, id)
      // half approve, half reject, all at once
      const actions = committee.map((_, i): 'approve' | 'reject' => (i % 2 === 0 ? 'approve' : 'reject'))
      const results = await Promise.all(
        committee.map((member, i) =>
          decide(h.app, member, curation.id, actions[i]!, { comment: `member ${i}` }),
        ),
      )
      const statuses = results.map((r) => r.statusCode)
      expect(statuses.filter((s) => s === 200)).toHaveLength(1)
      expect(statuses.filter((s) => s === 409)).toHaveLength(MEMBERS - 1)
      for (const r of results.filter((r) => r.statusCode === 409))
        expect(r.json().code).toBe('already_decided')

      const winner = statuses.indexOf(200)
      const decided = results[winner]!.json().data as Curation
      const expectedStatus = actions[winner] === 'approve' ? 'approved' : 'rejected'
      expect(decided).toMatchObject({
        status: expectedStatus,
        reviewed_by: committee[winner]!.address,
        comment: `member ${winner}`,
      })
      const [row] = await h.db.sql`
        select cu.status, cu.reviewed_by, c.is_approved, c.pending_review,
               c.reviewed_at = cu.reviewed_at as same_time
        from curations cu join collections c on c.id = cu.collection_id where cu.id = ${curation.id}`
      expect(row).toEqual({
        status: expectedStatus,
        reviewed_by: committee[winner]!.address,
        is_approved: expectedStatus === 'approved',
        pending_review: false,
        same_time: true,
      })
    }
    const { kept, counted } = await keptAndCountedByReview(h.db.sql)
    expect(kept).toEqual(counted)
    const [disagree] = await h.db.sql<{ n: number }[]>`
      select count(*)::int as n from collections c
      where c.pending_review <> exists (select 1 from curations cu where cu.collection_id = c.id and cu.status = 'pending')`
    expect(disagree!.n).toBe(0)
  })
})

describe('asking for review at once', () => {
  it('the owner and nine managers: one review is opened, the others get 409 review_pending', async (ctx) => {
    requireRealPostgres(ctx, h.db)
    const owner = await createIdentity()
    const managers = await identities(9)
    for (let round = 0; round < 4; round++) {
      const id = await publishedCollection(h.app, owner, { managers: managers.map((m) => m.address) })
      const results = await Promise.all([owner, ...managers].map((who) => askReview(h.app, who, id)))
      const statuses = results.map((r) => r.statusCode)
      expect(statuses.filter((s) => s === 201)).toHaveLength(1)
      expect(statuses.filter((s) => s === 409)).toHaveLength(9)
      for (const r of results.filter((r) => r.statusCode === 409))
        expect(r.json().code).toBe('review_pending')
      const rows = await h.db.sql`select status from curations where collection_id = ${id}`
      expect(rows).toEqual([{ status: 'pending' }])
    }
  })
})

describe('setting the forum thread at once', () => {
  it('the owner and nine managers: one link is kept, the others get 409 forum_already_set', async (ctx) => {
    requireRealPostgres(ctx, h.db)
    const owner = await createIdentity()
    const managers = await identities(9)
    const id = await publishedCollection(h.app, owner, { managers: managers.map((m) => m.address) })
    const everyone = [owner, ...managers]
    const results = await Promise.all(
      everyone.map((who, i) =>
        call(h.app, who, 'PUT', `/v1/collections/${id}/forum`, {
          forum_link: `https://forum.example.org/t/${i}`,
          forum_id: i + 1,
        }),
      ),
    )
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 204)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(9)
    const winner = statuses.indexOf(204)
    const [row] = await h.db.sql`select forum_link, forum_id from collections where id = ${id}`
    expect(row).toEqual({ forum_link: `https://forum.example.org/t/${winner}`, forum_id: winner + 1 })
  })
})
