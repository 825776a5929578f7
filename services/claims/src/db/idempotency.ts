import { oldRowsDeleting, type Queryable } from '@genesis/common'

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
 * index), starting where the batch before ended (keys are never updated).
 */
export const idempotencyKeysPruning = () =>
  oldRowsDeleting('idempotency_keys', 'created_at', IDEMPOTENCY_KEY_TTL_HOURS * 3600)
