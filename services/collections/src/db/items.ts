import type { Queryable } from '@genesis/common'
import { isoTimestamp } from './timestamps.js'

export interface ItemRow {
  id: string
  collection_id: string
  name: string
  type: 'wearable' | 'emote'
  content_hash: string
  blockchain_item_id: string | null
  submitted_content_hash: string | null
  /** ISO 8601 (isoTimestamp), as answered. */
  created_at: string
  updated_at: string
}

const COLUMNS = `id, collection_id, name, type, content_hash, blockchain_item_id, submitted_content_hash,
  ${isoTimestamp('created_at', 'created_at')}, ${isoTimestamp('updated_at', 'updated_at')}`
const columns = (sql: Queryable) => sql.unsafe(COLUMNS)

/** In creation order (the order publication numbers them in). */
export async function listItems(sql: Queryable, collectionId: string): Promise<ItemRow[]> {
  return sql<ItemRow[]>`
    select ${columns(sql)} from items where collection_id = ${collectionId} order by items.created_at, seq`
}

/** How many items the collection has (under its row lock: what a new item is counted against). */
export async function countItems(sql: Queryable, collectionId: string): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from items where collection_id = ${collectionId}`
  return row?.n ?? 0
}

/** Whether any of the collection's items was never sent to review (a third party's draft). */
export async function hasDraftItems(sql: Queryable, collectionId: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    select exists (select 1 from items where collection_id = ${collectionId} and submitted_content_hash is null) as found`
  return row?.found === true
}

/** One page of the collection's items in creation order, with their total; drafts left out unless `drafts`. */
export async function itemsPage(
  sql: Queryable,
  collectionId: string,
  page: { offset: number; limit: number; drafts: boolean },
): Promise<{ items: ItemRow[]; total: number }> {
  const shown = page.drafts ? sql`true` : sql`submitted_content_hash is not null`
  const [items, [count]] = await Promise.all([
    sql<ItemRow[]>`
      select ${columns(sql)} from items where collection_id = ${collectionId} and ${shown}
      order by items.created_at, seq limit ${page.limit} offset ${page.offset}`,
    sql<
      { n: number }[]
    >`select count(*)::int as n from items where collection_id = ${collectionId} and ${shown}`,
  ])
  return { items, total: count?.n ?? 0 }
}

export async function findItem(sql: Queryable, id: string): Promise<ItemRow | null> {
  const [row] = await sql<ItemRow[]>`select ${columns(sql)} from items where id = ${id}`
  return row ?? null
}

export async function lockItem(tx: Queryable, id: string): Promise<ItemRow | null> {
  const [row] = await tx<ItemRow[]>`select ${columns(tx)} from items where id = ${id} for update`
  return row ?? null
}

export interface ItemWrite {
  id: string
  collection_id: string
  name: string
  type: 'wearable' | 'emote'
  content_hash: string
  now: Date
}

export async function insertItem(tx: Queryable, item: ItemWrite): Promise<void> {
  await tx`
    insert into items (id, collection_id, name, type, content_hash, created_at, updated_at)
    values (${item.id}, ${item.collection_id}, ${item.name}, ${item.type}, ${item.content_hash}, ${item.now}, ${item.now})`
}

export async function updateItem(tx: Queryable, item: ItemWrite): Promise<void> {
  await tx`
    update items set name = ${item.name}, type = ${item.type}, content_hash = ${item.content_hash},
                     updated_at = ${item.now}
    where id = ${item.id}`
}

export async function deleteItem(tx: Queryable, id: string): Promise<void> {
  await tx`delete from items where id = ${id}`
}

/** Token ids 0..n-1 in creation order, as the collection contract numbers its items. */
export async function assignBlockchainItemIds(tx: Queryable, collectionId: string, now: Date): Promise<void> {
  await tx`
    update items set blockchain_item_id = (numbered.n - 1)::text, updated_at = ${now}
    from (select id, row_number() over (order by created_at, seq) as n from items
          where collection_id = ${collectionId}) numbered
    where items.id = numbered.id`
}

/** Records the content hashes sent to the committee: those items now wait for approval. */
export async function submitItems(tx: Queryable, ids: string[], now: Date): Promise<void> {
  await tx`
    update items set submitted_content_hash = content_hash, updated_at = ${now}
    where id = any(${tx.array(ids)}::uuid[])`
}
