import type { Queryable } from '@genesis/common'

/**
 * The number every committed write to collections, curations or third parties advances (migration 00005's
 * triggers), as a JavaScript number: it grows by one a transaction, far from 2^53.
 */
export async function answersVersion(sql: Queryable): Promise<number> {
  const [row] = await sql.unsafe<{ v: number }[]>('select v::float8 as v from answers_version', [], {
    prepare: true,
  })
  if (!row) throw new Error('answers_version has no row: migration 00005 not applied')
  return row.v
}
