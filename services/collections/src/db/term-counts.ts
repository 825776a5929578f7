import type { Queryable } from '@genesis/common'

/**
 * A search that counts at least this many matches keeps its term's count (migration 00009) from then on:
 * below it, counting in the suffix index costs about what reading the kept count does.
 */
export const KEEP_FROM = 1_000

/** At most this many terms are kept: every write to collections compares the names it writes with each. */
export const KEPT_TERMS_MAX = 1_000

/** The terms this process is starting to keep: one attempt at a time per term. */
const starting = new Map<string, Promise<boolean>>()

/**
 * Starts keeping the count of collections whose name contains `q` (collection_term_counts_keep), in a
 * statement of its own (its transaction holds a SHARE lock on collections while it counts, at most
 * lock_timeout waiting for it). Never rejects: an attempt that fails (the lock not had in time, a
 * read-only database) leaves the term counted per search, and a later search tries again. Resolves to
 * whether the term is kept. `sql` must not be a transaction: the lock would last as long as it.
 */
export function keepTermCount(sql: Queryable, q: string): Promise<boolean> {
  const underWay = starting.get(q)
  if (underWay !== undefined) return underWay
  const attempt = sql
    .unsafe<{ kept: boolean }[]>('select collection_term_counts_keep($1, $2) as kept', [q, KEPT_TERMS_MAX], {
      prepare: true,
    })
    .then(
      ([row]) => row?.kept === true,
      () => false,
    )
    .finally(() => starting.delete(q))
  starting.set(q, attempt)
  return attempt
}
