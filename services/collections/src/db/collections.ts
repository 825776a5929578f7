import type { Queryable } from '@genesis/common'
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

export interface Page {
  limit: number
  offset: number
}

type Parameter = string | number

/**
 * The filter as SQL text with numbered parameters ($1, $2, …). Publication is written into the text, not
 * passed as a parameter, so a generic plan can use the partial index on published collections.
 */
function whereClause(filter: CollectionFilter): { text: string; params: Parameter[] } {
  const params: Parameter[] = []
  const param = (value: Parameter) => {
    params.push(value)
    return `$${params.length}`
  }
  const conditions: string[] = []
  // a suffix of the name starts with q (migrations/00003: the suffix index)
  if (filter.q !== undefined)
    conditions.push(`collection_name_suffixes(c.name) @@ collection_name_prefix(${param(filter.q)})`)
  conditions.push(...flagConditions(filter, 'c.'))
  if (filter.member !== undefined) {
    // One indexed branch per role, rather than an OR of them, which only a scan of the table can answer.
    const member = param(filter.member)
    conditions.push(`c.id in (
      select id from collections where eth_address = ${member}
      union all select id from collections where managers @> array[${member}]::text[]
      union all select id from collections where minters @> array[${member}]::text[]
      union all select id from collections where third_party_id in (
        select id from third_parties where managers @> array[${member}]::text[]))`)
  }
  return { text: conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`, params }
}

/** What the list of contract addresses reads of each collection on its page. */
const CONTRACT_ADDRESS = 'c.contract_address'

/**
 * One page, newest first, each row with the number of matches (`total`). Statements are prepared once
 * per connection and run with their generic plan (plan_cache_mode=force_generic_plan, src/db/settings.ts):
 * one round trip and no planning per call. A generic plan is blind to the search term, so a search or a
 * member's list first collects its matches in a materialized CTE, which only an index (name suffixes, owner,
 * managers, minters) can produce, counts them there and reads the page's rows by key; planned freely, a
 * generic plan would walk the whole created_at index, filtering. An unnarrowed page walks that index, and
 * its total comes from `collection_counts` (kept by trigger) instead of counting the table. The figures
 * behind both choices are in BENCHMARKS.md.
 */
export function listQuery(
  filter: CollectionFilter,
  page: Page,
  // a collection's own fields: no list decides rights row by row, so none joins the third party's managers
  columns: string = FIELDS,
): { text: string; params: Parameter[] } {
  const where = whereClause(filter)
  const n = where.params.length
  const params = [...where.params, page.limit, page.offset]
  const window = `limit $${n + 1} offset $${n + 2}`
  const text = isNarrowed(filter)
    ? `with matched as materialized (select c.id, c.created_at from collections c ${where.text}),
       page as (select id, created_at, count(*) over ()::int as total from matched
                order by created_at desc, id ${window})
       select ${columns}, page.total from page join collections c on c.id = page.id
       order by page.created_at desc, page.id`
    : `select ${columns}, (${keptCount(filter)}) as total from collections c
       ${where.text} order by c.created_at desc, c.id ${window}`
  return { text, params }
}

const isNarrowed = (filter: CollectionFilter) => filter.q !== undefined || filter.member !== undefined

/**
 * The flags of the filter as conditions on `collections` (prefix `c.`) or, with no prefix, on the keys of
 * `collection_counts`, whose columns are named alike but for kind and review.
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

/** The number of collections an unnarrowed filter selects, from the counts the trigger keeps. */
function keptCount(filter: CollectionFilter): string {
  const conditions = flagConditions(filter, '')
  const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`
  return `select coalesce(sum(n), 0)::int from collection_counts ${where}`
}

/** `sql.unsafe` sends an unnamed statement unless told otherwise; these are few and reused, so name them. */
const prepared = <T extends object>(sql: Queryable, text: string, params: Parameter[]) =>
  sql.unsafe<T[]>(text, params, { prepare: true })

/** The total when the page itself cannot tell it: past the last match. */
async function countWhere(sql: Queryable, filter: CollectionFilter): Promise<number> {
  const where = whereClause(filter)
  const [row] = await prepared<{ total: number }>(
    sql,
    isNarrowed(filter)
      ? `select count(*)::int as total from collections c ${where.text}`
      : `select (${keptCount(filter)}) as total`,
    isNarrowed(filter) ? where.params : [],
  )
  return row?.total ?? 0
}

const totalOf = async (
  sql: Queryable,
  filter: CollectionFilter,
  rows: readonly { total: number }[],
): Promise<number> => rows[0]?.total ?? countWhere(sql, filter)

/** Newest first. */
export async function listCollections(
  sql: Queryable,
  filter: CollectionFilter,
  page: Page,
): Promise<{ rows: CollectionFields[]; total: number }> {
  const query = listQuery(filter, page)
  const rows = await prepared<CollectionFields & { total: number }>(sql, query.text, query.params)
  return { rows, total: await totalOf(sql, filter, rows) }
}

export async function listContractAddresses(
  sql: Queryable,
  filter: CollectionFilter,
  page: Page,
): Promise<{ addresses: string[]; total: number }> {
  const standard = { ...filter, standardOnly: true }
  const query = listQuery(standard, page, CONTRACT_ADDRESS)
  const rows = await prepared<{ contract_address: string; total: number }>(sql, query.text, query.params)
  return {
    addresses: rows.map((r) => r.contract_address),
    total: await totalOf(sql, standard, rows),
  }
}
