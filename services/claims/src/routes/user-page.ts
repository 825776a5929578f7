import { offsetOf, paged } from '@genesis/common'
import type { UserPageQuery } from '@genesis/wire/claims'
import { subjectOf } from '../domain/subject.js'
import type { Actor } from '../domain/transitions.js'

/**
 * The answer of a list of one user's records: the page `list` reads of the signed caller's own, or of the
 * user the operator names, each shown by `show`.
 */
export async function userPage<Row, T>(
  actor: Actor,
  query: UserPageQuery,
  list: (user: string, page: { limit: number; offset: number }) => Promise<{ rows: Row[]; total: number }>,
  show: (row: Row) => T,
) {
  const { rows, total } = await list(subjectOf(actor, query.user), {
    limit: query.limit,
    offset: offsetOf(query),
  })
  return paged(rows.map(show), { page: query.page, limit: query.limit, total })
}
