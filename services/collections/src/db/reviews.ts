import type { Queryable } from '@genesis/common'
import { isoTimestamp } from './timestamps.js'

/** Curation records (table `curations`): a request for the committee's review and its decision. */
export type CurationKind = 'collection' | 'items'
export type CurationStatus = 'pending' | 'approved' | 'rejected'
export type Decision = 'approved' | 'rejected'

export interface CurationRow {
  id: string
  collection_id: string
  collection_name: string
  kind: CurationKind
  status: CurationStatus
  item_ids: string[]
  requested_by: string
  reviewed_by: string | null
  comment: string | null
  /** ISO 8601 (isoTimestamp), as answered. */
  created_at: string
  reviewed_at: string | null
  updated_at: string
}

const COLUMNS = `cu.id, cu.collection_id, c.name as collection_name, cu.kind, cu.status, cu.item_ids::text[] as item_ids,
  cu.requested_by, cu.reviewed_by, cu.comment, ${isoTimestamp('cu.created_at', 'created_at')},
  ${isoTimestamp('cu.reviewed_at', 'reviewed_at')}, ${isoTimestamp('cu.updated_at', 'updated_at')}`

export async function findCuration(sql: Queryable, id: string): Promise<CurationRow | null> {
  const [row] = await sql<CurationRow[]>`
    select ${sql.unsafe(COLUMNS)} from curations cu join collections c on c.id = cu.collection_id
    where cu.id = ${id}`
  return row ?? null
}

/** The review's status as it is now, or null when there is no such review. */
export async function curationStatus(sql: Queryable, id: string): Promise<CurationStatus | null> {
  const [row] = await sql<{ status: CurationStatus }[]>`select status from curations where id = ${id}`
  return row?.status ?? null
}

export interface NewCuration {
  id: string
  collection_id: string
  kind: CurationKind
  item_ids: string[]
  requested_by: string
  now: Date
}

/** Opens a pending review and marks the collection as waiting for one, in the caller's transaction. */
export async function insertCuration(tx: Queryable, c: NewCuration): Promise<void> {
  await tx`
    insert into curations (id, collection_id, kind, item_ids, requested_by, created_at, updated_at)
    values (${c.id}, ${c.collection_id}, ${c.kind}, ${tx.array(c.item_ids)}::uuid[], ${c.requested_by}, ${c.now}, ${c.now})`
  await tx`update collections set pending_review = true, updated_at = ${c.now} where id = ${c.collection_id}`
}

export interface CurationDecision {
  id: string
  decision: Decision
  /** Null: seen on chain rather than decided through the route. */
  reviewer: string | null
  comment: string | null
  now: Date
}

/**
 * Decides the review if it is still pending (the `status = 'pending'` condition is what lets only one of
 * two concurrent decisions through) and answers whether it did.
 */
export async function decideCuration(tx: Queryable, d: CurationDecision): Promise<boolean> {
  const rows = await tx`
    update curations set status = ${d.decision}, reviewed_by = ${d.reviewer}, comment = ${d.comment},
                         reviewed_at = ${d.now}, updated_at = ${d.now}
    where id = ${d.id} and status = 'pending'
    returning id`
  return rows.length > 0
}

/** The collection's side of a decision: `reviewed_at` now, no review pending, `is_approved` as given. */
export async function recordReview(
  tx: Queryable,
  collectionId: string,
  isApproved: boolean,
  now: Date,
): Promise<void> {
  await tx`
    update collections set is_approved = ${isApproved}, reviewed_at = ${now}, pending_review = false,
                           updated_at = ${now}
    where id = ${collectionId}`
}

/**
 * A rejected third-party review gives its items back to the creator: no longer waiting for approval, they
 * can be changed and sent to review again (with a new cheque).
 */
export async function returnRejectedItems(tx: Queryable, collectionId: string, itemIds: string[], now: Date) {
  if (itemIds.length === 0) return
  await tx`
    update items set submitted_content_hash = null, updated_at = ${now}
    where collection_id = ${collectionId} and id = any(${tx.array(itemIds)}::uuid[])`
}

export async function pendingCurationOf(tx: Queryable, collectionId: string): Promise<string | null> {
  const [row] = await tx<{ id: string }[]>`
    select id from curations where collection_id = ${collectionId} and status = 'pending'`
  return row?.id ?? null
}

/** Items sent to review (publication) that no approved review covers yet: what a new review would cover. */
export async function itemsAwaitingApproval(tx: Queryable, collectionId: string): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`
    select i.id from items i
    where i.collection_id = ${collectionId} and i.submitted_content_hash is not null
      and not exists (select 1 from curations cu
                      where cu.collection_id = i.collection_id and cu.status = 'approved' and i.id = any(cu.item_ids))
    order by i.created_at, i.seq`
  return rows.map((r) => r.id)
}

/** A collection's reviews, newest first. */
export async function curationsOf(sql: Queryable, collectionId: string): Promise<CurationRow[]> {
  return sql<CurationRow[]>`
    select ${sql.unsafe(COLUMNS)} from curations cu join collections c on c.id = cu.collection_id
    where cu.collection_id = ${collectionId} order by cu.created_at desc, cu.id`
}

/**
 * A search of the queue: pending reviews whose collection's name contains `$3` (case-insensitive, as a
 * collection search). It starts from what is pending, the few collections waiting for review
 * (`c.pending_review`, a partial index), and looks at each one's name: a common word does not visit every
 * collection whose name contains it.
 */
const SEARCHED_PENDING = `select cu.id, cu.created_at from collections c
  join curations cu on cu.collection_id = c.id and cu.status = 'pending'
  where c.pending_review and strpos(lower(c.name), lower($3)) > 0`

/**
 * The committee's queue as one statement ($1 limit, $2 offset, $3 the search). Unsearched, it walks the
 * pending reviews' partial index in queue order, and its total is the collections waiting for review as
 * collection_counts keeps them (one pending review per collection, and `pending_review` is set and cleared
 * by the transactions that open and decide it), not a count of the queue; searched, its matches are gathered
 * in a materialized CTE, counted and paged, like the collection lists (migrations 00003, 00004).
 */
export const pendingCurationsQuery = (searched: boolean) =>
  searched
    ? `with matched as materialized (${SEARCHED_PENDING}),
       page as (select id, created_at, count(*) over ()::int as total from matched
                order by created_at, id limit $1 offset $2)
       select ${COLUMNS}, page.total from page join curations cu on cu.id = page.id
         join collections c on c.id = cu.collection_id
       order by page.created_at, page.id`
    : `select ${COLUMNS}, (select coalesce(sum(n), 0)::int from collection_counts where pending_review) as total
       from curations cu join collections c on c.id = cu.collection_id
       where cu.status = 'pending' order by cu.created_at, cu.id limit $1 offset $2`

/** The committee's queue: pending reviews, oldest first, optionally searched by collection name. */
export async function listPendingCurations(
  sql: Queryable,
  filter: { q?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ rows: CurationRow[]; total: number }> {
  const searched = filter.q !== undefined
  const params: (string | number)[] = [page.limit, page.offset]
  if (filter.q !== undefined) params.push(filter.q)
  const rows = await sql.unsafe<(CurationRow & { total: number })[]>(
    pendingCurationsQuery(searched),
    params,
    {
      prepare: true,
    },
  )
  if (rows.length > 0 || page.offset === 0) return { rows, total: rows[0]?.total ?? 0 }
  // past the last match: the page cannot tell the total
  const [counted] = await sql.unsafe<{ total: number }[]>(
    searched
      ? `select count(*)::int as total from (${SEARCHED_PENDING.replace('$3', '$1')}) as matched`
      : `select coalesce(sum(n), 0)::int as total from collection_counts where pending_review`,
    filter.q === undefined ? [] : [filter.q],
    { prepare: true },
  )
  return { rows: [], total: counted?.total ?? 0 }
}

/** The forum thread of the collection's review. */
export async function setForum(
  tx: Queryable,
  collectionId: string,
  forum: { forum_link: string; forum_id: number },
  now: Date,
): Promise<void> {
  await tx`
    update collections set forum_link = ${forum.forum_link}, forum_id = ${forum.forum_id}, updated_at = ${now}
    where id = ${collectionId}`
}

/**
 * What the chain says of a standard collection's approval, recorded when it differs from what is stored:
 * `is_approved` and `reviewed_at` follow it, and an approval closes the pending review as approved on chain.
 * Answers the stored `reviewed_at` (ISO) when something changed, null otherwise.
 */
export async function recordChainApproval(
  tx: Queryable,
  collectionId: string,
  approved: boolean,
  now: Date,
): Promise<string | null> {
  const [row] = await tx<{ reviewed_at: string }[]>`
    update collections set is_approved = ${approved}, reviewed_at = ${now}, updated_at = ${now},
                           pending_review = pending_review and not ${approved}
    where id = ${collectionId} and is_approved <> ${approved}
    returning ${tx.unsafe(isoTimestamp('reviewed_at', 'reviewed_at'))}`
  if (!row) return null
  if (approved) {
    await tx`
      update curations set status = 'approved', reviewed_by = null, reviewed_at = ${now}, updated_at = ${now}
      where collection_id = ${collectionId} and status = 'pending'`
  }
  return row.reviewed_at
}
