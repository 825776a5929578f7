import type { Sql } from '@genesis/common'
import { pruneIdempotencyKeys } from '../db/idempotency.js'

export interface SweepReport {
  expired: number
  idempotencyKeys: number
}

/**
 * Writes `failed` on claims that expired while `claimed`. Reads already show them failed (the
 * claim_transactions_current view); this makes it durable, with updated_at = expires_at like the reads.
 */
export async function sweep(sql: Sql): Promise<SweepReport> {
  const expired = await sql`
    update claim_transactions set status = 'failed', updated_at = greatest(updated_at, expires_at)
    where status = 'claimed' and expires_at <= now()`
  return { expired: expired.count, idempotencyKeys: await pruneIdempotencyKeys(sql) }
}
