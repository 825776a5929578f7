import { BATCH_SIZE, inBatches, type Sql } from '@genesis/common'
import { expiredClaimsFailing } from '../db/claim-transactions.js'
import { idempotencyKeysPruning } from '../db/idempotency.js'

export interface SweepReport {
  expired: number
  idempotencyKeys: number
}

/**
 * Writes `failed` on claims of unwatched chains (no RPC URL) that expired while `claimed`: reads already
 * show them failed, this makes it durable. A claim of a watched chain is never touched here, live or not:
 * only the reconciler, on proof from the chain, may end it. Then forgets the Idempotency-Keys past their
 * time. Both in batches (inBatches) that an index gives exactly, so that a tick with nothing to do costs
 * the same on any table, and a backlog is cleared in short transactions.
 */
export async function sweep(sql: Sql, signal?: AbortSignal): Promise<SweepReport> {
  return { expired: await failExpired(sql, signal), idempotencyKeys: await pruneKeys(sql, signal) }
}

export const failExpired = (sql: Sql, signal?: AbortSignal) =>
  inBatches(sql, expiredClaimsFailing(), { size: BATCH_SIZE, signal })

export const pruneKeys = (sql: Sql, signal?: AbortSignal) =>
  inBatches(sql, idempotencyKeysPruning(), { size: BATCH_SIZE, signal })
