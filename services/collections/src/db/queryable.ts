import type postgres from 'postgres'

/** The pool or a transaction: every query function takes either. */
export type Queryable = postgres.ISql

/** PostgreSQL unique_violation, with the constraint (index) that refused the row. */
export function uniqueViolation(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null
  const { code, constraint_name } = error as { code?: unknown; constraint_name?: unknown }
  return code === '23505' && typeof constraint_name === 'string' ? constraint_name : null
}
