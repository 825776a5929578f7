import type { Sql } from '@genesis/common'

export interface CountRow {
  is_published: boolean
  is_standard: boolean
  n: number
}

/** What `collection_counts` holds, and what counting the table gives, in the same shape. */
export async function keptAndCounted(sql: Sql): Promise<{ kept: CountRow[]; counted: CountRow[] }> {
  const kept = await sql<CountRow[]>`
    select is_published, is_standard, n::int as n from collection_counts order by 1, 2`
  const counted = await sql<CountRow[]>`
    select p as is_published, s as is_standard,
           (select count(*)::int from collections where is_published = p and (third_party_id is null) = s) as n
    from (values (false), (true)) as publication (p), (values (false), (true)) as kind (s)
    order by 1, 2`
  return { kept, counted }
}
