import { BATCH_SIZE, type Queryable, type ResumedBatch, resumedBatches } from '@genesis/common'

/** Keys are kept this long; a retry after that creates a new claim. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24

/** The earlier use of this key by this user, if any. */
export async function findIdempotencyKey(
  sql: Queryable,
  user: string,
  key: string,
): Promise<{ requestHash: string; claimId: string } | undefined> {
  const [earlier] = await sql<{ request_hash: string; claim_transaction_id: string }[]>`
    select request_hash, claim_transaction_id from idempotency_keys where "user" = ${user} and key = ${key}`
  return earlier && { requestHash: earlier.request_hash, claimId: earlier.claim_transaction_id }
}

/**
 * The batches of one pruning run: each up to BATCH_SIZE keys past their time, oldest first (the created_at
 * index), starting where the batch before ended (resumedBatches). Deleted by their address alone (keys are
 * never updated), so that the delete cannot be planned as a walk of every expired key filtered by the
 * batch's addresses.
 */
export const idempotencyKeysPruning = () =>
  resumedBatches(
    async (sql, after) =>
      (
        await sql<ResumedBatch[]>`
          with gone as (
            delete from idempotency_keys
            where ctid = any(array(
              select ctid from idempotency_keys
              where created_at >= ${after}::text::timestamptz
                and created_at < now() - ${sql.unsafe(String(IDEMPOTENCY_KEY_TTL_HOURS))} * interval '1 hour'
              order by created_at limit ${sql.unsafe(String(BATCH_SIZE))}))
            returning created_at)
          select count(*)::int as n, max(created_at)::text as last from gone`
      )[0],
  )
