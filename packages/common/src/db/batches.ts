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

/** What a resumed batch reports: the rows it changed, and the last key it did as PostgreSQL's text. */
export interface ResumedBatch {
  n: number
  last: string | null
}

/**
 * A batch for inBatches that starts where the batch before ended: `batch` gets `after`, the last key done
 * as PostgreSQL's text (a JS Date would drop its microseconds; '-infinity' at first), and scans its index
 * from there. A batch that scanned from the start would read again the entries of every row the batches
 * before it deleted or moved out of the index: they stay until a vacuum, and while any transaction of the
 * database holds an older snapshot PostgreSQL cannot mark them dead (ten batches: ~55,000 reads for
 * 10,000 rows). Only for keys that a row never gains behind the cursor while the run lasts.
 */
export function resumedBatches(
  batch: (q: Queryable, after: string) => Promise<ResumedBatch | undefined>,
): (q: Queryable) => Promise<number> {
  let after = '-infinity'
  return async (q) => {
    const done = await batch(q, after)
    if (done?.last) after = done.last
    return done?.n ?? 0
  }
}

/**
 * A resumed batch deleting the rows of `table` that are `keepS` seconds or more past their `column` (an
 * indexed timestamp), at most BATCH_SIZE a batch, oldest first. The rows are deleted by their address
 * alone, so that the delete cannot be planned as a walk of every old row filtered by the batch's
 * addresses. Only for rows whose `column` never changes (inserted and deleted, never updated).
 */
export function oldRowsDeleting(
  table: string,
  column: string,
  keepS: number,
): (q: Queryable) => Promise<number> {
  return resumedBatches(
    async (q, after) =>
      (
        await q<ResumedBatch[]>`
          with gone as (
            delete from ${q(table)}
            where ctid = any(array(
              select ctid from ${q(table)}
              where ${q(column)} >= ${after}::text::timestamptz
                and ${q(column)} < now() - ${q.unsafe(String(keepS))} * interval '1 second'
              order by ${q(column)} limit ${q.unsafe(String(BATCH_SIZE))}))
            returning ${q(column)})
          select count(*)::int as n, max(${q(column)})::text as last from gone`
      )[0],
  )
}
