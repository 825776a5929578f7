/**
 * A timestamp column rendered as the API writes it (`Date.prototype.toISOString`'s form, milliseconds
 * truncated alike): PostgreSQL formats it far more cheaply than parsing it into a Date and formatting that
 * again in the service, three times a row (BENCHMARKS.md).
 */
export const isoTimestamp = (column: string, as: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${as}`
