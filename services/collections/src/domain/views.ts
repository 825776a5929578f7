import type { Collection, Item } from '@genesis/wire/collections'
import type { CollectionFields } from '../db/collections.js'
import type { ItemRow } from '../db/items.js'

/** A lock counts while it is younger than the TTL (and publication clears it). */
export const isLockActive = (lock: Date | null, ttlS: number, now: Date): boolean =>
  lock !== null && lock.getTime() + ttlS * 1000 > now.getTime()

export function publicView(row: CollectionFields): Collection {
  return {
    id: row.id,
    name: row.name,
    eth_address: row.eth_address,
    contract_address: row.contract_address,
    urn: row.urn,
    is_published: row.is_published,
    is_approved: row.is_approved,
    minters: row.minters,
    managers: row.managers,
    reviewed_at: row.reviewed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

export function fullView(row: CollectionFields, lockTtlS: number, now: Date): Collection {
  // Not { ...publicView(row), … }: V8 copies a spread into a literal with more fields on a slow path,
  // which every row of a page pays (BENCHMARKS.md).
  return Object.assign(publicView(row), {
    salt: row.salt,
    forum_link: row.forum_link,
    forum_id: row.forum_id,
    lock: row.lock !== null && isLockActive(row.lock, lockTtlS, now) ? row.lock.toISOString() : null,
  })
}

export const itemView = (row: ItemRow): Item => ({
  id: row.id,
  collection_id: row.collection_id,
  name: row.name,
  type: row.type,
  content_hash: row.content_hash,
  blockchain_item_id: row.blockchain_item_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
})
