import type { Queryable } from '@genesis/common'
import { loadChainRows, writeChainRows } from '../db/chain-writes.js'
import type { LandChanges } from '../db/land-changes.js'
import type { Contracts, Located } from './events.js'
import { handlerOf, RowKeys, type SkipReason } from './handlers/index.js'
import { BatchStore } from './store.js'

/**
 * Applies a batch's events, in block and log order, to the land tables in the caller's transaction: each
 * event's handler names the rows it can touch, those are read with a few queries, the handlers apply the
 * events to them in memory, and the final rows (with the undo images of blocks above `floor`) are written
 * with a few set-based statements. Returns why each skipped event was skipped. The rows written are told to
 * `changes`.
 */
export async function applyEvents(
  q: Queryable,
  events: readonly Located[],
  contracts: Contracts,
  floor: bigint,
  changes?: LandChanges,
): Promise<SkipReason[]> {
  if (events.length === 0) return []
  const want = new RowKeys()
  for (const { event, txHash } of events) handlerOf(event).keys(event, want, { txHash, contracts })
  const keys = want.keys()
  const { rows, now } = await loadChainRows(q, keys)
  const db = new BatchStore(rows, keys, now)
  const skipped: SkipReason[] = []
  for (const { event, ...where } of events) {
    db.at(where.block, where.block > floor)
    const reason = handlerOf(event).apply(event, { ...where, db, contracts })
    if (reason) skipped.push(reason)
  }
  await writeChainRows(q, db.result(), changes)
  return skipped
}
