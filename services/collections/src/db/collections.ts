import type { Queryable } from './queryable.js'
import { likeEscape } from './queryable.js'

export interface CollectionRow {
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
  reviewed_at: Date | null
  created_at: Date
  updated_at: Date
  /** Managers of the collection's third party (empty for a standard collection). */
  third_party_managers: string[]
}

const COLUMNS = `c.id, c.name, c.eth_address, c.salt, c.contract_address, c.urn, c.third_party_id, c.urn_suffix,
  c.is_published, c.is_approved, c.minters, c.managers, c.forum_link, c.forum_id, c.lock, c.reviewed_at,
  c.created_at, c.updated_at, coalesce(tp.managers, '{}'::text[]) as third_party_managers`
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

export interface NewCollection {
  id: string
  name: string
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
    insert into collections (id, name, eth_address, salt, contract_address, urn, third_party_id, urn_suffix,
                             managers, minters, created_at, updated_at)
    values (${c.id}, ${c.name}, ${c.eth_address}, ${c.salt}, ${c.contract_address}, ${c.urn}, ${c.third_party_id},
            ${c.urn_suffix}, ${tx.array(c.managers)}::text[], ${tx.array(c.minters)}::text[], ${c.now}, ${c.now})`
}

export interface CollectionChanges {
  name: string
  managers?: string[] | undefined
  minters?: string[] | undefined
  now: Date
}

export async function updateCollection(tx: Queryable, id: string, changes: CollectionChanges): Promise<void> {
  await tx`
    update collections set
      name = ${changes.name},
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
  /** Collections this address owns, manages (itself or through its third party) or mints for. */
  member?: string | undefined
  /** Standard collections only (those with a contract address). */
  standardOnly?: boolean
}

export interface Page {
  limit: number
  offset: number
}

type Parameter = string | number | boolean

/** The filter as SQL text with numbered parameters ($1, $2, …). */
function whereClause(filter: CollectionFilter): { text: string; params: Parameter[] } {
  const params: Parameter[] = []
  const param = (value: Parameter) => {
    params.push(value)
    return `$${params.length}`
  }
  const conditions: string[] = []
  if (filter.q !== undefined)
    conditions.push(`lower(c.name) like ${param(`%${likeEscape(filter.q.toLowerCase())}%`)}`)
  if (filter.isPublished !== undefined) conditions.push(`c.is_published = ${param(filter.isPublished)}`)
  if (filter.standardOnly) conditions.push('c.third_party_id is null')
  if (filter.member !== undefined) {
    const member = param(filter.member)
    conditions.push(`(c.eth_address = ${member}
      or c.managers @> array[${member}]::text[]
      or c.minters @> array[${member}]::text[]
      or c.third_party_id in (select id from third_parties where managers @> array[${member}]::text[]))`)
  }
  return { text: conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`, params }
}

/**
 * List queries run as unnamed (unprepared) statements, which PostgreSQL always plans with their
 * parameters. A prepared statement may switch to a generic plan after five runs, and a generic plan is
 * blind to the search term: for `lower(name) like $1 … order by created_at limit n` it walks the whole
 * created_at index (90 ms on 100,000 rows for a rare term) instead of using the trigram index (a few ms).
 */
const run = <T extends object>(sql: Queryable, text: string, params: Parameter[]) =>
  sql.unsafe(text, params, { prepare: false }) as unknown as Promise<T[]>

/**
 * The total of a paged search. A page that is not full tells the total by itself, which spares the
 * second scan of the index for most searches; only full (or empty, past the end) pages count.
 */
async function totalOf(found: number, page: Page, count: () => Promise<number>): Promise<number> {
  if (found > 0 && found < page.limit) return page.offset + found
  if (found === 0 && page.offset === 0) return 0
  return count()
}

async function countWhere(sql: Queryable, filter: CollectionFilter): Promise<number> {
  const where = whereClause(filter)
  const [row] = await run<{ total: number }>(
    sql,
    `select count(*)::int as total from collections c ${where.text}`,
    where.params,
  )
  return row?.total ?? 0
}

/** Newest first. */
export async function listCollections(
  sql: Queryable,
  filter: CollectionFilter,
  page: Page,
): Promise<{ rows: CollectionRow[]; total: number }> {
  const where = whereClause(filter)
  const n = where.params.length
  const rows = await run<CollectionRow>(
    sql,
    `select ${COLUMNS} from collections c left join third_parties tp on tp.id = c.third_party_id
     ${where.text} order by c.created_at desc, c.id limit $${n + 1} offset $${n + 2}`,
    [...where.params, page.limit, page.offset],
  )
  return { rows, total: await totalOf(rows.length, page, () => countWhere(sql, filter)) }
}

export async function listContractAddresses(
  sql: Queryable,
  filter: CollectionFilter,
  page: Page,
): Promise<{ addresses: string[]; total: number }> {
  const standard = { ...filter, standardOnly: true }
  const where = whereClause(standard)
  const n = where.params.length
  const rows = await run<{ contract_address: string }>(
    sql,
    `select c.contract_address from collections c
     ${where.text} order by c.created_at desc, c.id limit $${n + 1} offset $${n + 2}`,
    [...where.params, page.limit, page.offset],
  )
  return {
    addresses: rows.map((r) => r.contract_address),
    total: await totalOf(rows.length, page, () => countWhere(sql, standard)),
  }
}
