import type { Queryable } from '@genesis/common'
import { askedByEnough, KEEP_FROM, keepTermCount, touchKeptTerm } from './term-counts.js'
import { isoTimestamp } from './timestamps.js'

/** A collection's own fields: what a list reads. */
export interface CollectionFields {
  id: string
  name: string
  eth_address: string
  salt: string | null
  contract_address: string | null
  urn: string
  third_party_id: string | null
  urn_suffix: string | null
  is_published: boolean
  is_approved: boolean
  minters: string[]
  managers: string[]
  forum_link: string | null
  forum_id: number | null
  lock: Date | null
  /** ISO 8601 (isoTimestamp), as answered. */
  reviewed_at: string | null
  created_at: string
  updated_at: string
}

/** A collection with what the rights on it depend on: what a read or change of one collection takes. */
export interface CollectionRow extends CollectionFields {
  /** Managers of the collection's third party (empty for a standard collection). */
  third_party_managers: string[]
}

const FIELDS = `c.id, c.name, c.eth_address, c.salt, c.contract_address, c.urn, c.third_party_id, c.urn_suffix,
  c.is_published, c.is_approved, c.minters, c.managers, c.forum_link, c.forum_id, c.lock,
  ${isoTimestamp('c.reviewed_at', 'reviewed_at')}, ${isoTimestamp('c.created_at', 'created_at')},
  ${isoTimestamp('c.updated_at', 'updated_at')}`
const COLUMNS = `${FIELDS}, coalesce(tp.managers, '{}'::text[]) as third_party_managers`
const columns = (sql: Queryable) => sql.unsafe(COLUMNS)

export async function findCollection(sql: Queryable, id: string): Promise<CollectionRow | null> {
  const [row] = await sql<CollectionRow[]>`
    select ${columns(sql)} from collections c left join third_parties tp on tp.id = c.third_party_id
    where c.id = ${id}`
  return row ?? null
}

/** Reads the collection and holds its row lock until the transaction ends: every change goes through here. */
export async function lockCollection(tx: Queryable, id: string): Promise<CollectionRow | null> {
  const [row] = await tx<CollectionRow[]>`
    select ${columns(tx)} from collections c left join third_parties tp on tp.id = c.third_party_id
    where c.id = ${id} for update of c`
  return row ?? null
}

/** Whether the collection exists, holding its row lock (when it does) until the transaction ends. */
export async function lockCollectionIfExists(tx: Queryable, id: string): Promise<boolean> {
  return (await tx`select 1 from collections where id = ${id} for update`).length > 0
}

export interface NewCollection {
  id: string
  name: string
  /** The name's normal form (domain/name-key.ts): standard collections' names are unique on it. */
  name_key: string
  eth_address: string
  urn: string
  managers: string[]
  minters: string[]
  salt: string | null
  contract_address: string | null
  third_party_id: string | null
  urn_suffix: string | null
  now: Date
}

export async function insertCollection(tx: Queryable, c: NewCollection): Promise<void> {
  await tx`
    insert into collections (id, name, name_key, eth_address, salt, contract_address, urn, third_party_id, urn_suffix,
                             managers, minters, created_at, updated_at)
    values (${c.id}, ${c.name}, ${c.name_key}, ${c.eth_address}, ${c.salt}, ${c.contract_address}, ${c.urn}, ${c.third_party_id},
            ${c.urn_suffix}, ${tx.array(c.managers)}::text[], ${tx.array(c.minters)}::text[], ${c.now}, ${c.now})`
}

export interface CollectionChanges {
  name: string
  name_key: string
  managers?: string[] | undefined
  minters?: string[] | undefined
  now: Date
}

export async function updateCollection(tx: Queryable, id: string, changes: CollectionChanges): Promise<void> {
  await tx`
    update collections set
      name = ${changes.name},
      name_key = ${changes.name_key},
      managers = ${changes.managers ? tx`${tx.array(changes.managers)}::text[]` : tx`managers`},
      minters = ${changes.minters ? tx`${tx.array(changes.minters)}::text[]` : tx`minters`},
      updated_at = ${changes.now}
    where id = ${id}`
}

/** Deletes the collection with its items, terms and cheques (the caller's transaction makes it one change). */
export async function deleteCollection(tx: Queryable, id: string): Promise<void> {
  await tx`delete from items where collection_id = ${id}`
  await tx`delete from collections where id = ${id}`
}

export async function setLock(tx: Queryable, id: string, lock: Date): Promise<void> {
  await tx`update collections set lock = ${lock}, updated_at = ${lock} where id = ${id}`
}

/** Publication ends the lock. */
export async function markPublished(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx`update collections set is_published = true, lock = null, updated_at = ${now} where id = ${id}`
}

export interface CollectionFilter {
  /** Case-insensitive substring of the name. */
  q?: string | undefined
  isPublished?: boolean | undefined
  /** The review state: each written into the text like publication, for the partial indexes. */
  isApproved?: boolean | undefined
  /** `reviewed_at` is set. */
  reviewed?: boolean | undefined
  pendingReview?: boolean | undefined
  /** Collections this address owns, manages (itself or through its third party) or mints for. */
  member?: string | undefined
  /** Standard collections only (those with a contract address). */
  standardOnly?: boolean
}

/** A row of the list's order (created_at newest first, then id): where a keyset page starts after. */
export interface Position {
  /** created_at to the microsecond, ISO 8601 in UTC (`listPosition`). */
  createdAt: string
  id: string
}

export interface Page {
  limit: number
  offset: number
  /** Keyset paging: the page starts right after this row (`offset` is then not used). */
  after?: Position | undefined
}

type Parameter = string | number

/** SQL text with numbered parameters ($1, $2, …). */
class Statement {
  readonly params: Parameter[] = []
  param(value: Parameter): string {
    this.params.push(value)
    return `$${this.params.length}`
  }
}

/**
 * The flags of the filter as conditions on a table with the columns of `collections` (prefix `c.`), on
 * `collection_name_suffixes` (prefix `s.`: publication and kind only) or, with no prefix, on the keys of
 * `collection_counts`, whose columns are named alike but for kind and review. Each is written into the
 * text, not passed as a parameter, so that a generic plan can use the partial indexes.
 */
function flagConditions(filter: CollectionFilter, prefix: 'c.' | ''): string[] {
  const flag = (value: boolean | undefined, column: string, negated = `not ${column}`) =>
    value === undefined ? [] : [value ? column : negated]
  const counts = prefix === ''
  return [
    ...flag(filter.isPublished, `${prefix}is_published`),
    ...flag(filter.isApproved, `${prefix}is_approved`),
    ...(counts
      ? flag(filter.reviewed, 'is_reviewed')
      : flag(filter.reviewed, 'c.reviewed_at is not null', 'c.reviewed_at is null')),
    ...flag(filter.pendingReview, `${prefix}pending_review`),
    ...(filter.standardOnly ? [counts ? 'is_standard' : `${prefix}third_party_id is null`] : []),
  ]
}

/** Whether the filter asks for more than collection_name_suffixes knows (publication and kind). */
const needsCollections = (filter: CollectionFilter) =>
  filter.isApproved !== undefined ||
  filter.reviewed !== undefined ||
  filter.pendingReview !== undefined ||
  filter.member !== undefined

/** The member's collections: one indexed branch per role, rather than an OR of them (a scan of the table). */
const memberCondition = (member: string) => `c.id in (
      select id from collections where eth_address = ${member}
      union all select id from collections where managers @> array[${member}]::text[]
      union all select id from collections where minters @> array[${member}]::text[]
      union all select id from collections where third_party_id in (
        select id from third_parties where managers @> array[${member}]::text[]))`

/**
 * The suffixes that start with q (a range of collection_name_suffixes_search), each collection once. The
 * length is a subquery so that it is computed once, not for each row of the range.
 */
const suffixRange = (q: string) => [
  `s.suffix >= lower(${q}) collate "C"`,
  `s.suffix < collection_name_prefix_end(lower(${q})) collate "C"`,
  `s.repeats < (select char_length(lower(${q})))`,
]

/** Publication and kind, which collection_name_suffixes keeps beside each suffix (collection_term_counts too). */
const suffixFlags = (filter: CollectionFilter, prefix: 's.' | 'k.' = 's.') => [
  ...(filter.isPublished === undefined
    ? []
    : [filter.isPublished ? `${prefix}is_published` : `not ${prefix}is_published`]),
  ...(filter.standardOnly ? [`${prefix}is_standard`] : []),
]

/**
 * A search's total and whether it was kept: from collection_term_counts when the term is kept there (its
 * four keys, summed over the filter's), else counted in the suffix index (an index-only range, one entry
 * per match). The count is an InitPlan that COALESCE evaluates only when the kept sum is null.
 */
function searchTotal(term: string, filter: CollectionFilter): string {
  const keptWhere = [`k.term = lower(${term}) collate "C"`, ...suffixFlags(filter, 'k.')].join(' and ')
  const range = [...suffixRange(term), ...suffixFlags(filter)].join(' and ')
  return `select coalesce(kept.n, (select count(*)::int from collection_name_suffixes s where ${range})) as n,
      kept.n is not null as kept
    from (select sum(k.n)::int as n from collection_term_counts k where ${keptWhere}) as kept`
}

/**
 * The matches of a narrowed filter other than a plain search (a member, or a search with a review
 * filter), as `(id, created_at)` rows, which only an index (name suffixes, owner, managers, minters) can
 * produce. The review state is not beside the suffixes: such a search reads each match's row.
 */
function matchesOf(filter: CollectionFilter, statement: Statement): string {
  if (filter.q === undefined) {
    const conditions = [memberCondition(statement.param(filter.member!)), ...flagConditions(filter, 'c.')]
    return `select c.id, c.created_at from collections c where ${conditions.join(' and ')}`
  }
  const conditions = suffixRange(statement.param(filter.q))
  if (filter.member !== undefined) conditions.push(memberCondition(statement.param(filter.member)))
  conditions.push(...flagConditions(filter, 'c.'))
  return `select c.id, c.created_at from collection_name_suffixes s join collections c on c.id = s.collection_id
          where ${conditions.join(' and ')}`
}

/** The position of a row in the list's order, as a page's `after`: created_at to the microsecond. */
const POSITION = `to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at`

/**
 * Rows after `after` in the order created_at desc, id (ascending for equal times): `created_at <= at` is a
 * range an index on created_at starts at (an OR of the two cases alone would make the walk start at the
 * newest row), the rest leaves out the rows of that very time up to the cursor's. The time goes as text:
 * postgres.js would carry a timestamptz parameter through a JavaScript Date, to the millisecond.
 */
const afterCondition = (statement: Statement, after: Position, createdAt: string, id: string) => {
  const at = `${statement.param(after.createdAt)}::text::timestamptz`
  const key = `${statement.param(after.id)}::uuid`
  return `${createdAt} <= ${at} and (${createdAt} < ${at} or ${id} > ${key})`
}

/**
 * A search (q, with publication and kind at most): one statement that counts the matches in the suffix
 * index alone, then reads the page the cheaper of two ways, decided by that count (the other way's
 * branch is cut by a one-time filter before it reads anything):
 * - a common term (matches × matches > rows to skip and show × the collections it filters): walk
 *   created_at newest first, looking at each name, until the page is full; the rows walked are about the
 *   page's depth × collections / matches, whatever the number of matches;
 * - otherwise, the newest of the matches in the suffix range, sorted.
 * Its cost is the total's plus at most the smaller of the two. The total of a common term is kept
 * (collection_term_counts, see `searchTotal` and src/db/term-counts.ts): four rows read whatever the
 * number of matches; a term not kept is counted, an index-only range of its matches.
 */
function searchQuery(q: string, filter: CollectionFilter, page: Page, columns: string) {
  const statement = new Statement()
  const term = statement.param(q)
  const range = [...suffixRange(term), ...suffixFlags(filter)].join(' and ')
  const limit = `${statement.param(page.limit)}::int`
  const offset = page.after ? '0' : `${statement.param(page.offset)}::int`
  const walkAfter = page.after ? afterCondition(statement, page.after, 'c.created_at', 'c.id') : 'true'
  const rangeAfter = page.after
    ? afterCondition(statement, page.after, 's.created_at', 's.collection_id')
    : 'true'
  const walking = `(select n from total)::float8 * (select n from total) > (${limit} + ${offset})::float8 * (${keptCount(filter)})`
  const walkFlags = flagConditions(filter, 'c.')
  const text = `with total as materialized (${searchTotal(term, filter)}), walked as materialized (
      select c.id, c.created_at from collections c
      where ${walking} and ${[...walkFlags, `strpos(lower(c.name), (select lower(${term}))) > 0`, walkAfter].join(' and ')}
      order by c.created_at desc, c.id limit ${limit} offset ${offset}
    ), ranged as materialized (
      select s.collection_id as id, s.created_at from collection_name_suffixes s
      where not (${walking}) and ${range} and ${rangeAfter}
      order by s.created_at desc, s.collection_id limit ${limit} offset ${offset}
    ), page as (select id, created_at from walked union all select id, created_at from ranged)
    select ${columns}, ${POSITION}, (select n from total) as total, (select kept from total) as kept
    from page join collections c on c.id = page.id
    order by page.created_at desc, page.id`
  return { text, params: statement.params }
}

/**
 * One page, newest first, each row with the number of matches (`total`) and its position (for the next
 * page's cursor). Statements are prepared once per connection and run with their generic plan
 * (plan_cache_mode=force_generic_plan, src/db/settings.ts): one round trip and no planning per call. A
 * generic plan is blind to the search term, so a search reads its matches from the suffix index
 * (searchQuery), and a member's list collects its matches in a materialized CTE that only an index
 * (owner, managers, minters) can produce, counts them there and reads the page's rows by key; planned
 * freely, a generic plan would walk the whole created_at index, filtering. An unnarrowed page walks that
 * index (from the cursor's row with `after`), and its total comes from `collection_counts` (kept by
 * trigger) instead of counting the table. The figures behind these choices are in BENCHMARKS.md.
 */
export function listQuery(
  filter: CollectionFilter,
  page: Page,
  // a collection's own fields: no list decides rights row by row, so none joins the third party's managers
  columns: string = FIELDS,
): { text: string; params: Parameter[] } {
  if (filter.q !== undefined && !needsCollections(filter)) return searchQuery(filter.q, filter, page, columns)
  const statement = new Statement()
  const selected = `${columns}, ${POSITION}`
  if (isNarrowed(filter)) {
    const matched = matchesOf(filter, statement)
    const window = page.after
      ? `where ${afterCondition(statement, page.after, 'created_at', 'id')} order by created_at desc, id limit ${statement.param(page.limit)}`
      : `order by created_at desc, id limit ${statement.param(page.limit)} offset ${statement.param(page.offset)}`
    const text = `with matched as materialized (${matched}),
       page as (select id, created_at, (select count(*) from matched)::int as total from matched ${window})
       select ${selected}, page.total from page join collections c on c.id = page.id
       order by page.created_at desc, page.id`
    return { text, params: statement.params }
  }
  const conditions = flagConditions(filter, 'c.')
  if (page.after) conditions.push(afterCondition(statement, page.after, 'c.created_at', 'c.id'))
  const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`
  const window = page.after
    ? `limit ${statement.param(page.limit)}`
    : `limit ${statement.param(page.limit)} offset ${statement.param(page.offset)}`
  const text = `select ${selected}, (${keptCount(filter)}) as total from collections c
       ${where} order by c.created_at desc, c.id ${window}`
  return { text, params: statement.params }
}

const isNarrowed = (filter: CollectionFilter) => filter.q !== undefined || filter.member !== undefined

/** The number of collections an unnarrowed filter selects, from the counts the trigger keeps. */
function keptCount(filter: CollectionFilter): string {
  const conditions = flagConditions(filter, '')
  const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`
  return `select coalesce(sum(n), 0)::int from collection_counts ${where}`
}

/** `sql.unsafe` sends an unnamed statement unless told otherwise; these are few and reused, so name them. */
const prepared = <T extends object>(sql: Queryable, text: string, params: Parameter[]) =>
  sql.unsafe<T[]>(text, params, { prepare: true })

/** A list's total, and for a search whether it came from a kept count (other lists: undefined). */
interface Total {
  total: number
  kept?: boolean | undefined
}

/** The total when the page itself cannot tell it: past the last match. */
async function countWhere(sql: Queryable, filter: CollectionFilter): Promise<Total> {
  const statement = new Statement()
  const text =
    filter.q !== undefined && !needsCollections(filter)
      ? `select n as total, kept from (${searchTotal(statement.param(filter.q), filter)}) as total`
      : isNarrowed(filter)
        ? `select count(*)::int as total from (${matchesOf(filter, statement)}) as matched`
        : `select (${keptCount(filter)}) as total`
  const [row] = await prepared<Total>(sql, text, statement.params)
  return row ?? { total: 0 }
}

/**
 * The list's total, from its first row or counted. A search that counted at least KEEP_FROM matches
 * starts keeping its term's count in the background (on `sql`, which the lists get as the pool), so that
 * the next ones read it.
 */
async function totalOf(sql: Queryable, filter: CollectionFilter, rows: readonly Total[]): Promise<number> {
  const { total, kept } = rows[0] ?? (await countWhere(sql, filter))
  if (filter.q !== undefined) {
    if (kept === true) touchKeptTerm(sql, filter.q)
    else if (kept === false && total >= KEEP_FROM && askedByEnough(filter.q))
      void keepTermCount(sql, filter.q)
  }
  return total
}

/** What a list row carries besides the collection: its position in the order, and the list's total. */
interface Listed extends Total {
  position_at: string
}

export interface ListedPage<T> {
  rows: T[]
  total: number
  /** The position of the page's last row when more rows follow it: where the next page starts. */
  last: Position | null
}

/**
 * Newest first. One row more than the page is read: whether it exists says whether a next page does,
 * whatever was written since the total was counted.
 */
export async function listCollections(
  sql: Queryable,
  filter: CollectionFilter,
  page: Page,
): Promise<ListedPage<CollectionFields>> {
  const query = listQuery(filter, { ...page, limit: page.limit + 1 })
  const read = await prepared<CollectionFields & Listed>(sql, query.text, query.params)
  const rows = read.slice(0, page.limit)
  const last = read.length > page.limit ? rows.at(-1) : undefined
  return {
    rows,
    total: await totalOf(sql, filter, rows),
    last: last ? { createdAt: last.position_at, id: last.id } : null,
  }
}

/** What the list of contract addresses reads of each collection on its page. */
const CONTRACT_ADDRESS = 'c.contract_address'

export async function listContractAddresses(
  sql: Queryable,
  filter: CollectionFilter,
  page: Page,
): Promise<{ addresses: string[]; total: number }> {
  const standard = { ...filter, standardOnly: true }
  const query = listQuery(standard, page, `c.id, ${CONTRACT_ADDRESS}`)
  const rows = await prepared<{ contract_address: string } & Total>(sql, query.text, query.params)
  return {
    addresses: rows.map((r) => r.contract_address),
    total: await totalOf(sql, standard, rows),
  }
}
