import { ConflictError } from '@genesis/common'
import type { Queryable } from './queryable.js'

/** Keys are kept this long; a retry after that creates a new claim. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24

/**
 * Claims the key for this request inside the create's transaction. A concurrent request with the same
 * key waits here until the first one commits (then sees its claim) or rolls back (then proceeds).
 * Returns the earlier use when the key was already taken.
 */
export async function claimIdempotencyKey(
  sql: Queryable,
  key: { user: string; key: string; requestHash: string; claimId: string },
): Promise<{ requestHash: string; claimId: string } | undefined> {
  const inserted = await sql`
    insert into idempotency_keys ("user", key, request_hash, claim_transaction_id)
    values (${key.user}, ${key.key}, ${key.requestHash}, ${key.claimId})
    on conflict ("user", key) do nothing
    returning 1`
  if (inserted.length > 0) return undefined
  const [earlier] = await sql<{ request_hash: string; claim_transaction_id: string }[]>`
    select request_hash, claim_transaction_id from idempotency_keys
    where "user" = ${key.user} and key = ${key.key}`
  // pruned between the two statements: rare enough that the client's retry is the right answer
  if (!earlier)
    throw new ConflictError('The Idempotency-Key was released concurrently; retry', { code: 'conflict' })
  return { requestHash: earlier.request_hash, claimId: earlier.claim_transaction_id }
}

export async function pruneIdempotencyKeys(sql: Queryable): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where created_at < now() - make_interval(hours => ${IDEMPOTENCY_KEY_TTL_HOURS})`
  return result.count
}
