import { queryDeadlineMs, type Sql } from './database.js'
import type { Queryable } from './queryable.js'

/** Rows a background batch changes at most: small enough to finish far under a query deadline. */
export const BATCH_SIZE = 1000

export interface BatchOptions {
  /** The most rows one batch changes: the statement's own LIMIT. */
  size: number
  /** Checked between batches: a process shutting down stops after the batch under way. */
  signal?: AbortSignal | undefined
}

/**
 * A statement_timeout below the pool's query deadline, so that PostgreSQL itself cancels (and rolls back)
 * a batch before the pool gives up on it: otherwise the pool would report a failure while the statement
 * ran on and committed.
 */
export const batchTimeoutMs = (queryMs: number) =>
  queryMs > 0 ? Math.max(100, queryMs - Math.max(250, Math.round(queryMs / 5))) : 0

/**
 * Background work in bounded steps: `batch` is one statement that changes at most `options.size` rows
 * (an `order by … limit` that an index answers) and returns how many it changed; it runs again until one
 * changes fewer, so a backlog costs batches, not one long statement holding its row locks throughout.
 * Each batch is a transaction of its own under `batchTimeoutMs`: what a batch changed is committed, or
 * cancelled by PostgreSQL and reported as the error it is, never both. Sequential scans, hash and merge
 * joins are off in it: a batch walks its index and finds its rows by key, whatever statistics taken before
 * a backlog grew would make the planner prefer (a plan that reads the whole backlog for each batch, kept
 * for the connection's life as its generic plan). Returns the rows changed.
 */
export async function inBatches(
  sql: Sql,
  batch: (tx: Queryable) => Promise<number>,
  options: BatchOptions,
): Promise<number> {
  const timeout = batchTimeoutMs(queryDeadlineMs(sql))
  let total = 0
  for (;;) {
    if (options.signal?.aborted) return total
    const changed = await sql.begin(async (tx) => {
      await tx`
        select set_config('statement_timeout', ${String(timeout)}, true), set_config('enable_seqscan', 'off', true),
          set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`
      return batch(tx)
    })
    total += changed
    if (changed < options.size) return total
  }
}
