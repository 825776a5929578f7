import { randomUUID } from 'node:crypto'
import { uniqueViolation } from '@genesis/common'
import type { ForumBody } from '@genesis/wire/collections'
import { findCollection, lockCollection } from '../db/collections.js'
import {
  type CurationRow,
  curationStatus,
  curationsOf,
  type Decision,
  decideCuration,
  findCuration,
  insertCuration,
  itemsAwaitingApproval,
  pendingCurationOf,
  recordReview,
  returnRejectedItems,
  setForum,
} from '../db/reviews.js'
import {
  alreadyApproved,
  alreadyDecided,
  collectionNotFound,
  curationNotFound,
  forumAlreadySet,
  notAllowed,
  nothingToReview,
  notPublished,
  reviewPending,
} from '../errors.js'
import { canEdit, seesFullView } from './access.js'
import { approvalAfterDecision, type ChainApproval, refreshApproval } from './chain-approval.js'
import { type Access, askFirst, roles, rolesOn } from './guards.js'

/** What the committee's review needs: who may act, the database, the chain reader and the clock. */
export interface Review extends Access, ChainApproval {}

/**
 * POST /v1/collections/{id}/curations: the owner or a manager asks the committee to review a published
 * standard collection, or the third party's items that were sent to review and are not approved yet.
 * One pending review per collection (409 review_pending; the database's unique index settles races).
 */
export async function requestReview(review: Review, caller: string, id: string): Promise<CurationRow> {
  // The chain's word on approval and on who manages first (with RPC_URL), outside the transaction: no row
  // lock held over a call.
  const current = await findCollection(review.sql, id)
  if (current) await refreshApproval(review, [current])
  const ctx = await askFirst(review, review.sql, id, caller)
  const curationId = randomUUID()
  try {
    await ctx.sql.begin(async (tx) => {
      const row = await lockCollection(tx, id)
      if (!row) throw collectionNotFound(id)
      if (!canEdit(await rolesOn(ctx, tx, caller, row, 'edit')))
        throw notAllowed('the owner or a manager of the collection', 'ask for its review')
      if (!row.is_published) {
        throw notPublished(`Collection ${id} is not published: publish it before asking for review`)
      }
      const pending = await pendingCurationOf(tx, id)
      if (pending) throw reviewPending(id, pending)
      let itemIds: string[] = []
      if (row.third_party_id === null) {
        if (row.is_approved) {
          throw alreadyApproved(id)
        }
      } else {
        itemIds = await itemsAwaitingApproval(tx, id)
        if (itemIds.length === 0) {
          throw nothingToReview(id)
        }
      }
      await insertCuration(tx, {
        id: curationId,
        collection_id: id,
        kind: row.third_party_id === null ? 'collection' : 'items',
        item_ids: itemIds,
        requested_by: caller,
        now: ctx.now(),
      })
    })
  } catch (error) {
    if (uniqueViolation(error) === 'curations_one_pending') throw reviewPending(id)
    throw error
  }
  return (await findCuration(ctx.sql, curationId))!
}

/**
 * POST /v1/curations/{id}/approve|reject: a committee member decides a pending review. Under the
 * collection's row lock, and only while the review is pending: of two concurrent decisions one is
 * recorded, the other is 409 already_decided. `reviewed_at` is set; `is_approved` follows the decision,
 * or with RPC_URL what the collection contract says (a node that does not answer is 503, nothing written).
 * A rejected third-party review gives its items back to the creator to change and send again.
 */
export async function decideReview(
  ctx: Review,
  caller: string,
  curationId: string,
  decision: Decision,
  comment: string | undefined,
): Promise<CurationRow> {
  if (!ctx.committee.has(caller)) throw notAllowed('committee members', 'decide a review')
  const curation = await findCuration(ctx.sql, curationId)
  if (!curation) throw curationNotFound(curationId)
  const collection = await findCollection(ctx.sql, curation.collection_id)
  if (!collection) throw curationNotFound(curationId)
  if (curation.status !== 'pending') throw alreadyDecided(curationId, curation.status)
  const approved = await approvalAfterDecision(ctx, collection, decision === 'approved')
  await ctx.sql.begin(async (tx) => {
    const row = await lockCollection(tx, curation.collection_id)
    if (!row) throw curationNotFound(curationId)
    const now = ctx.now()
    const decided = await decideCuration(tx, {
      id: curationId,
      decision,
      reviewer: caller,
      comment: comment ?? null,
      now,
    })
    if (!decided) {
      throw alreadyDecided(curationId, (await curationStatus(tx, curationId)) ?? 'unknown')
    }
    await recordReview(tx, row.id, approved, now)
    if (decision === 'rejected') await returnRejectedItems(tx, row.id, curation.item_ids, now)
  })
  return (await findCuration(ctx.sql, curationId))!
}

/** GET /v1/collections/{id}/curations: its reviews, newest first, for those who see its full view. */
export async function reviewsOf(ctx: Review, caller: string, id: string): Promise<CurationRow[]> {
  const row = await findCollection(ctx.sql, id)
  if (!row) throw collectionNotFound(id)
  if (!seesFullView(await rolesOn(ctx, ctx.sql, caller, row, 'see'))) {
    if (!row.is_published) throw collectionNotFound(id)
    throw notAllowed('its owner, managers, minters or the committee', "read the collection's reviews")
  }
  return curationsOf(ctx.sql, id)
}

/**
 * PUT /v1/collections/{id}/forum: the owner or a manager sets the review's forum thread once (409
 * forum_already_set afterwards); the committee sets or changes it at any time. Neither publication nor
 * a lock stops it: it describes the review, not the collection's content.
 */
export async function setForumThread(
  review: Review,
  caller: string,
  id: string,
  body: ForumBody,
): Promise<void> {
  const ctx = await askFirst(review, review.sql, id, caller)
  await ctx.sql.begin(async (tx) => {
    const row = await lockCollection(tx, id)
    if (!row) throw collectionNotFound(id)
    if (!roles(ctx, caller, row).committee) {
      if (!canEdit(await rolesOn(ctx, tx, caller, row, 'edit')))
        throw notAllowed('the owner, a manager or the committee', "set the collection's forum thread")
      if (row.forum_link !== null) {
        throw forumAlreadySet(id, { forum_link: row.forum_link, forum_id: row.forum_id })
      }
    }
    await setForum(tx, id, body, ctx.now())
  })
}
