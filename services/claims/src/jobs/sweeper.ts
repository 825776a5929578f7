import type { Sql } from '@genesis/common'
import { failExpiredUnwatched } from '../db/claim-transactions.js'
import { pruneIdempotencyKeys } from '../db/idempotency.js'

export interface SweepReport {
  expired: number
  idempotencyKeys: number
}

/**
 * Writes `failed` on claims of unwatched chains (no RPC URL) that expired while `claimed`: reads already
 * show them failed, this makes it durable. A claim of a watched chain is never touched here, live or not:
 * only the reconciler, on proof from the chain, may end it.
 */
export async function sweep(sql: Sql): Promise<SweepReport> {
  return { expired: await failExpiredUnwatched(sql), idempotencyKeys: await pruneIdempotencyKeys(sql) }
}
