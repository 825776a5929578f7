import type { Queryable } from '@genesis/common'

/**
 * The total of a list when its page already tells it: a page with fewer rows than asked for, and some of
 * them or none from the start, ends the list, so the total is the rows before it plus its own. Only a full
 * page (or one past the end) needs `count`: most users' lists fit one page, and then no request counts
 * their history.
 */
async function pageTotal(
  rows: readonly unknown[],
  page: { limit: number; offset: number },
  count: () => Promise<number>,
): Promise<number> {
  if (rows.length < page.limit && (rows.length > 0 || page.offset === 0)) return page.offset + rows.length
  return count()
}

/** A list of a user's records: the view it reads, the table it counts and its column of user_totals. */
export interface UserList {
  view: 'claim_transactions_current' | 'rewards_current'
  table: 'claim_transactions' | 'rewards'
  kept: 'claims' | 'rewards'
}

/**
 * A page of a user's records, newest first, and their total: as user_totals keeps it (migration 00007),
 * once it has counted the user, else counted.
 */
export async function listUserPage<Row extends object>(
  sql: Queryable,
  list: UserList,
  user: string,
  page: { limit: number; offset: number },
): Promise<{ rows: Row[]; total: number }> {
  const kept = sql(list.kept)
  const rows = await sql<(Row & { kept: number | null })[]>`
    select r.*, (select ${kept} from user_totals where "user" = ${user} and counted)::int as kept
    from ${sql(list.view)} r where r."user" = ${user}
    order by r.created_at desc, r.id desc
    limit ${page.limit} offset ${page.offset}`
  const total = await pageTotal(rows, page, async () => {
    const first = rows[0]?.kept
    if (first !== undefined && first !== null) return first
    const [count] = await sql<{ total: number }[]>`
      select coalesce((select ${kept} from user_totals where "user" = ${user} and counted),
                      (select count(*) from ${sql(list.table)} where "user" = ${user}))::int as total`
    return count?.total ?? 0
  })
  return { rows, total }
}
