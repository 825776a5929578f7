import type { Sql } from '@genesis/common'
import type { AssetType, PublicationStatus } from '../domain/constants.js'
import type { SortField } from '../schemas/queries.js'

export interface ListingQuery {
  type: AssetType
  status: PublicationStatus
  sortBy: SortField
  sortOrder: 'asc' | 'desc'
  limit: number
  offset: number
  now: number
}

const SORT_COLUMNS: Record<SortField, string> = {
  price: 'price',
  created_at: 'block_time_created_at',
  block_time_updated_at: 'block_time_updated_at',
  expires_at: 'expires_at',
}

/** Price and expiry ascend by default (cheapest, soonest first), the two times descend (newest first). */
export const DEFAULT_SORT_ORDER: Record<SortField, 'asc' | 'desc'> = {
  price: 'asc',
  created_at: 'desc',
  block_time_updated_at: 'desc',
  expires_at: 'asc',
}

/**
 * A page of the assets of one type that have a publication in `status` (an open one must not have
 * expired), each sorted by its newest such publication; ties broken by asset id (parcels by x then y,
 * estates by numeric id). Returns the asset ids of the page and the total.
 */
export async function listAssetIds(sql: Sql, q: ListingQuery): Promise<{ ids: string[]; total: number }> {
  const chosen = () => sql`
    select distinct on (asset_id) asset_id, price, block_time_created_at, block_time_updated_at, expires_at
    from publications
    where type = ${q.type} and status = ${q.status} ${q.status === 'open' ? sql`and expires_at > ${q.now}` : sql``}
    order by asset_id, block_time_created_at desc, tx_hash desc`
  const column = sql(SORT_COLUMNS[q.sortBy])
  const direction = q.sortOrder === 'asc' ? sql`asc` : sql`desc`
  const tieBreak =
    q.type === 'parcel'
      ? sql`split_part(asset_id, ',', 1)::int, split_part(asset_id, ',', 2)::int`
      : sql`length(asset_id), asset_id`
  const [page, [count]] = await Promise.all([
    sql<Array<{ asset_id: string }>>`
      select asset_id from (${chosen()}) c
      order by ${column} ${direction} nulls last, ${tieBreak}
      limit ${q.limit} offset ${q.offset}`,
    sql<Array<{ total: number }>>`select count(*)::int as total from (${chosen()}) c`,
  ])
  return { ids: page.map((r) => r.asset_id), total: count?.total ?? 0 }
}

/** A page of the parcels an address owns, by x then y, as parcel ids (`x,y`). */
export async function parcelsOwnedBy(
  sql: Sql,
  address: string,
  page: { limit: number; offset: number },
): Promise<{ ids: string[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<Array<{ id: string }>>`
      select x || ',' || y as id from parcels where owner = ${address}
      order by x, y limit ${page.limit} offset ${page.offset}`,
    sql<Array<{ total: number }>>`select count(*)::int as total from parcels where owner = ${address}`,
  ])
  return { ids: rows.map((r) => r.id), total: count?.total ?? 0 }
}

/** A page of the estates an address owns, by numeric id. */
export async function estatesOwnedBy(
  sql: Sql,
  address: string,
  page: { limit: number; offset: number },
): Promise<{ ids: string[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<Array<{ id: string }>>`
      select id from estates where owner = ${address} order by length(id), id limit ${page.limit} offset ${page.offset}`,
    sql<Array<{ total: number }>>`select count(*)::int as total from estates where owner = ${address}`,
  ])
  return { ids: rows.map((r) => r.id), total: count?.total ?? 0 }
}
