import type { Queryable } from '@genesis/common'
import { requireRealPostgres } from '@genesis/common/testing'
import type { Curation } from '@genesis/wire/collections'
import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { lockWaiters, randomUUID, refusal, useHarness, useIdentities } from './helpers.js'
import { askReview, decide, openReview, publishedCollection } from './review-helpers.js'

// Reviews whose state changes between a request's first reads and its work under the collection's row
// lock. A test transaction holds the row (or, for the unique index, a pending review of its own) so that
// the request waits at that point, changes what it needs, and lets go: the interleaving is forced.

const h = useHarness()
const [alice] = useIdentities(1)

/** Sends the requests while a transaction holds the collection's row, runs `meanwhile` in it, lets go. */
async function heldAtTheCollection(
  collectionId: string,
  requests: Array<() => Promise<LightMyRequestResponse>>,
  meanwhile: (tx: Queryable) => Promise<unknown> = async () => undefined,
): Promise<LightMyRequestResponse[]> {
  let answers: Promise<LightMyRequestResponse[]> | undefined
  await h.db.sql.begin(async (tx) => {
    await tx`select 1 from collections where id = ${collectionId} for update`
    answers = Promise.all(requests.map((send) => send()))
    await lockWaiters(h, requests.length)
    await meanwhile(tx)
  })
  return answers!
}

describe('two decisions of one review that both found it pending', () => {
  // Both pass the `status !== 'pending'` check before either decides; the loser learns the status from the
  // locked re-read. Guards `(await curationStatus(…)) ?? 'unknown'` → `&&` (the loser told 'unknown').
  it("the loser is 409 already_decided naming the winner's decision", async (ctx) => {
    requireRealPostgres(ctx, h.db)
    const id = await publishedCollection(h.app, alice)
    const curation = await openReview(h.app, alice, id)
    const answers = await heldAtTheCollection(id, [
      () => decide(h.app, h.committee, curation.id, 'approve'),
      () => decide(h.app, h.committee, curation.id, 'reject'),
    ])
    const statuses = answers.map((a) => a.statusCode)
    expect(statuses.sort()).toEqual([200, 409])
    const won = answers.find((a) => a.statusCode === 200)!.json().data as Curation
    const lost = refusal(answers.find((a) => a.statusCode === 409)!, 409, 'already_decided')
    expect(lost.data).toEqual({ status: won.status })
    expect(lost.error).toBe(`Curation ${curation.id} was already decided (${won.status})`)
  })
})

describe('a review deleted by hand while a decision waits for the collection', () => {
  // Nothing in the service deletes a review but its collection's deletion; an operator's SQL can. Guards
  // the `'unknown'` the refusal names when the review is gone → `""`.
  it('is 409 already_decided with the status unknown', async (ctx) => {
    requireRealPostgres(ctx, h.db)
    const id = await publishedCollection(h.app, alice)
    const curation = await openReview(h.app, alice, id)
    const [answer] = await heldAtTheCollection(
      id,
      [() => decide(h.app, h.committee, curation.id, 'approve')],
      (tx) => tx`delete from curations where id = ${curation.id}`,
    )
    const body = refusal(answer!, 409, 'already_decided')
    expect(body.data).toEqual({ status: 'unknown' })
    expect(body.error).toBe(`Curation ${curation.id} was already decided (unknown)`)
  })
})

describe("a review's collection deleted by hand while a decision waits for it", () => {
  // The service never deletes a published collection; an operator's SQL can, and takes its reviews along.
  // Guards the locked re-read's `if (!row) throw curationNotFound(…)` → `false` (then 409 already_decided
  // of an unknown status, for a review that does not exist).
  it('is 404 not_found naming the review', async (ctx) => {
    requireRealPostgres(ctx, h.db)
    const id = await publishedCollection(h.app, alice)
    const curation = await openReview(h.app, alice, id)
    const [answer] = await heldAtTheCollection(
      id,
      [() => decide(h.app, h.committee, curation.id, 'approve')],
      (tx) => tx`delete from collections where id = ${id}`,
    )
    const body = refusal(answer!, 404, 'not_found')
    expect(body.error).toBe(`Curation ${curation.id} not found`)
  })
})

describe('a pending review the collection lock did not keep out', () => {
  // The review's request holds the collection's row lock, so two requests never both find no pending
  // review; a pending review written without that lock (here by SQL with the foreign-key check off, which
  // would otherwise take a lock on the collection's row) is kept out by the unique index alone: the
  // request's insert waits for it and fails. Guards the catch's
  // `uniqueViolation(error) === 'curations_one_pending'` → `false` and its index name → `""` (a 500).
  it('the request meeting the unique index is 409 review_pending, and one review is pending', async (ctx) => {
    requireRealPostgres(ctx, h.db)
    const id = await publishedCollection(h.app, alice)
    const other = randomUUID()
    let answer: Promise<LightMyRequestResponse> | undefined
    await h.db.sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`
      await tx`
        insert into curations (id, collection_id, kind, item_ids, requested_by, created_at, updated_at)
        values (${other}, ${id}, 'collection', '{}', ${alice.address}, now(), now())`
      answer = askReview(h.app, alice, id)
      await lockWaiters(h, 1)
    })
    const body = refusal(await answer!, 409, 'review_pending')
    expect(body.error).toBe(`Collection ${id} already has a review waiting for the committee`)
    const rows = await h.db.sql`select id from curations where collection_id = ${id} and status = 'pending'`
    expect(rows).toEqual([{ id: other }])
  })
})
