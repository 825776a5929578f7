import type postgres from 'postgres'

/** The pool or an open transaction: every query function takes either. */
export type Queryable = postgres.ISql

/** The constraint (index) that refused a row with PostgreSQL's unique_violation, or null for any other error. */
export function uniqueViolation(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null
  const { code, constraint_name } = error as { code?: unknown; constraint_name?: unknown }
  return code === '23505' && typeof constraint_name === 'string' ? constraint_name : null
}
