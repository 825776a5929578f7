import type { Queryable } from '@genesis/common'
import { LRUCache } from 'lru-cache'

/**
 * A search that counts at least this many matches keeps its term's count (migration 00009) from then on:
 * below it, counting in the suffix index costs about what reading the kept count does.
 */
export const KEEP_FROM = 1_000

/** At most this many terms are kept: every write to collections compares the names it writes with each. */
export const KEPT_TERMS_MAX = 1_000

/**
 * A term is kept only once this many client addresses have searched it: one stranger alone, however many
 * terms it tries, keeps none (every kept term costs each write a comparison).
 */
export const KEEP_EVIDENCE = 3

/** A kept term nobody has asked for this long gives its place to a new one when the table is full. */
export const KEPT_TERM_IDLE = '7 days'

/** How often a replica records that a kept term was asked (its last_asked_at). */
const TOUCH_EVERY_MS = 3_600_000

/** Who searched each term lately (at most KEEP_EVIDENCE addresses each), per replica, for a day. */
const askedBy = new LRUCache<string, Set<string>>({ max: 10_000, ttl: 86_400_000 })

/** When this replica last recorded that a kept term was asked. */
const touched = new LRUCache<string, true>({ max: 10_000, ttl: TOUCH_EVERY_MS })

/** Notes that `caller` (a client address) searched `q`. */
export function noteSearch(q: string, caller: string): void {
  const term = q.toLowerCase()
  const callers = askedBy.get(term) ?? new Set<string>()
  if (callers.size < KEEP_EVIDENCE) callers.add(caller)
  askedBy.set(term, callers)
}

/** Whether enough client addresses have searched `q` for its count to be worth keeping. */
export const askedByEnough = (q: string) => (askedBy.get(q.toLowerCase())?.size ?? 0) >= KEEP_EVIDENCE

/** Records, at most once an hour per replica, that a kept term was read (it stays kept while asked). */
export function touchKeptTerm(sql: Queryable, q: string): void {
  const term = q.toLowerCase()
  if (touched.has(term)) return
  touched.set(term, true)
  sql
    .unsafe('update collection_terms set last_asked_at = now() where term = $1', [term], { prepare: true })
    .catch(() => touched.delete(term))
}

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
    .unsafe<{ kept: boolean }[]>(
      'select collection_term_counts_keep($1, $2, $3::interval) as kept',
      [q, KEPT_TERMS_MAX, KEPT_TERM_IDLE],
      { prepare: true },
    )
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
