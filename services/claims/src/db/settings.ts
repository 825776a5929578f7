import type { SessionSettings } from '@genesis/common'

/**
 * Every query of this service finds its rows by key (a primary key, a user, a partial index), so:
 * - one generic plan per prepared statement is as good as a plan made for each call's values. PostgreSQL's
 *   default keeps re-planning statements such as `id = any($1)` on every call (the generic plan's estimate
 *   of an array of unknown size never beats a plan made for one id), and that planning was a large share of
 *   the database's work on a create;
 * - a plain index scan beats a bitmap scan for the one to a hundred rows a key finds. Planning blind to the
 *   array's size, PostgreSQL picks bitmap scans for `id = any($1)`, each with a bitmap to build and a heap
 *   pass of its own (measured in BENCHMARKS.md).
 * Sent at connect; the embedded PGlite ignores them.
 */
export const CLAIMS_DB_SETTINGS: SessionSettings = {
  plan_cache_mode: 'force_generic_plan',
  enable_bitmapscan: 'off',
}
