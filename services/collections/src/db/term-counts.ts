import type { Queryable } from '@genesis/common'
import { LRUCache } from 'lru-cache'

/**
 * A search that counts at least this many matches keeps its term's count (migration 00009) from then on:
 * below it, counting in the suffix index costs about what reading the kept count does.
 */
export const KEEP_FROM = 1_000

/** At most this many terms are kept: every write to collections compares the names it writes with each. */
export const KEPT_TERMS_MAX = 1_000

/** After an attempt that did not keep the term, the searches of the next minute do not ask again. */
const RETRY_AFTER_MS = 60_000

/** The terms this process is starting to keep: one attempt at a time per term. */
const starting = new Map<string, Promise<boolean>>()

/** Terms not kept at their last attempt (the bound reached, the lock not had, a read-only database). */
const notKept = new LRUCache<string, true>({ max: 10_000, ttl: RETRY_AFTER_MS })

/**
 * Starts keeping the count of collections whose name contains `q` (collection_term_counts_keep), in a
 * statement of its own: its transaction holds a SHARE lock on collections while it counts, and waits at
 * most lock_timeout for it. Never rejects: an attempt that fails leaves the term counted by each search,
 * and a search after RETRY_AFTER_MS tries again (`retry`: at once). Resolves to whether the term is kept.
 * `sql` must not be a transaction: the lock would last as long as it.
 */
export function keepTermCount(
  sql: Queryable,
  q: string,
  options: { retry?: boolean } = {},
): Promise<boolean> {
  // one attempt per term however it is spelt: the database keeps it lower-cased
  const term = q.toLowerCase()
  const underWay = starting.get(term)
  if (underWay !== undefined) return underWay
  if (!options.retry && notKept.has(term)) return Promise.resolve(false)
  const attempt = sql
    .unsafe<{ kept: boolean }[]>('select collection_term_counts_keep($1, $2) as kept', [q, KEPT_TERMS_MAX], {
      prepare: true,
    })
    .then(
      ([row]) => row?.kept === true,
      () => false,
    )
    .then((kept) => {
      if (kept) notKept.delete(term)
      else notKept.set(term, true)
      return kept
    })
    .finally(() => starting.delete(term))
  starting.set(term, attempt)
  return attempt
}
