import type { Sql } from '@genesis/common'

export interface CountRow {
  is_published: boolean
  is_standard: boolean
  n: number
}

/** What `collection_counts` holds, and what counting the table gives, in the same shape. */
export async function keptAndCounted(sql: Sql): Promise<{ kept: CountRow[]; counted: CountRow[] }> {
  // summed over the review state (migration 00004 keys the counts by it too; see keptAndCountedByReview)
  const kept = await sql<CountRow[]>`
    select is_published, is_standard, sum(n)::int as n from collection_counts group by 1, 2 order by 1, 2`
  const counted = await sql<CountRow[]>`
    select p as is_published, s as is_standard,
           (select count(*)::int from collections where is_published = p and (third_party_id is null) = s) as n
    from (values (false), (true)) as publication (p), (values (false), (true)) as kind (s)
    order by 1, 2`
  return { kept, counted }
}

export interface ReviewCountRow extends CountRow {
  is_approved: boolean
  is_reviewed: boolean
  pending_review: boolean
}

/** `collection_counts` by every key, and the table counted in the same shape. */
export async function keptAndCountedByReview(
  sql: Sql,
): Promise<{ kept: ReviewCountRow[]; counted: ReviewCountRow[] }> {
  const kept = await sql<ReviewCountRow[]>`
    select is_published, is_standard, is_approved, is_reviewed, pending_review, n::int as n
    from collection_counts order by 1, 2, 3, 4, 5`
  const counted = await sql<ReviewCountRow[]>`
    select p as is_published, s as is_standard, a as is_approved, r as is_reviewed, w as pending_review,
           (select count(*)::int from collections
            where is_published = p and (third_party_id is null) = s and is_approved = a
              and (reviewed_at is not null) = r and pending_review = w) as n
    from (values (false), (true)) as publication (p), (values (false), (true)) as kind (s),
         (values (false), (true)) as approval (a), (values (false), (true)) as review (r),
         (values (false), (true)) as waiting (w)
    order by 1, 2, 3, 4, 5`
  return { kept, counted }
}

export interface TermCountRow extends CountRow {
  term: string
}

/**
 * What `collection_term_counts` holds for every kept term, and what counting the collections whose
 * lower-cased name contains it gives, in the same shape.
 */
export async function keptAndCountedTerms(
  sql: Sql,
): Promise<{ kept: TermCountRow[]; counted: TermCountRow[] }> {
  const kept = await sql<TermCountRow[]>`
    select term, is_published, is_standard, n::int as n from collection_term_counts order by 1, 2, 3`
  const counted = await sql<TermCountRow[]>`
    select t.term, p as is_published, s as is_standard,
           (select count(*)::int from collections c
            where strpos(lower(c.name) collate "C", t.term) > 0 and c.is_published = p
              and (c.third_party_id is null) = s) as n
    from (select distinct term from collection_term_counts) as t,
         (values (false), (true)) as publication (p), (values (false), (true)) as kind (s)
    order by 1, 2, 3`
  return { kept, counted }
}
