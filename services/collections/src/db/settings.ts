import type { SessionSettings } from '@genesis/common'

/**
 * Every query of this service finds its rows through a key or an index chosen by the query's shape (the
 * list queries make sure of it, see `listQuery`), so one generic plan per prepared statement serves every
 * call: no planning per call. PostgreSQL's default would keep re-planning a search, whose generic plan's
 * estimate never beats a plan made for a rare term.
 * No parallel workers: the generic estimates of a member's list (500 rows per role) drew a parallel plan
 * whose workers cost far more to start than the work itself (BENCHMARKS.md).
 * Sent at connect; the embedded PGlite ignores them.
 */
export const COLLECTIONS_DB_SETTINGS: SessionSettings = {
  plan_cache_mode: 'force_generic_plan',
  max_parallel_workers_per_gather: '0',
}
