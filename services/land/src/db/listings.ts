import type { Sql } from '@genesis/common'
import type { ListQuery, SortField } from '@genesis/wire/land'
import type { AssetType } from '../domain/constants.js'

const SORT_COLUMNS: Record<SortField, string> = {
  price: 'price',
  created_at: 'block_time_created_at',
  block_time_updated_at: 'block_time_updated_at',
  expires_at: 'expires_at',
}

/** Price and expiry ascend by default (cheapest, soonest first), the two times descend (newest first). */
const DEFAULT_SORT_ORDER: Record<SortField, 'asc' | 'desc'> = {
  price: 'asc',
  created_at: 'desc',
  block_time_updated_at: 'desc',
  expires_at: 'asc',
}

export interface IdPage {
  ids: string[]
  total: number
}

/**
 * A page of the assets of one type that have a publication in the query's status (open by default; an
 * open one must not have expired at `now`), each sorted by its newest such publication (by creation, unless
 * the query says otherwise, in the field's default order); ties broken by asset id (parcels by x then y,
 * estates by numeric id). Returns the asset ids of the page and the total.
 */
export async function listAssetIds(
  sql: Sql,
  type: AssetType,
  query: ListQuery,
  now: number,
): Promise<IdPage> {
  const { status = 'open', sort_by = 'created_at', limit, offset } = query
  const sortOrder = query.sort_order ?? DEFAULT_SORT_ORDER[sort_by]
  const chosen = () => sql`
    select distinct on (asset_id) asset_id, price, block_time_created_at, block_time_updated_at, expires_at
    from publications
    where type = ${type} and status = ${status} ${status === 'open' ? sql`and expires_at > ${now}` : sql``}
    order by asset_id, block_time_created_at desc, tx_hash desc`
  const column = sql(SORT_COLUMNS[sort_by])
  const direction = sortOrder === 'asc' ? sql`asc` : sql`desc`
  const tieBreak =
    type === 'parcel'
      ? sql`split_part(asset_id, ',', 1)::int, split_part(asset_id, ',', 2)::int`
      : sql`length(asset_id), asset_id`
  const [page, [count]] = await Promise.all([
    sql<Array<{ asset_id: string }>>`
      select asset_id from (${chosen()}) c
      order by ${column} ${direction} nulls last, ${tieBreak}
      limit ${limit} offset ${offset}`,
    sql<Array<{ total: number }>>`select count(*)::int as total from (${chosen()}) c`,
  ])
  return { ids: page.map((r) => r.asset_id), total: count?.total ?? 0 }
}

/**
 * A page of the assets of one type an address owns, as asset ids: parcels (`x,y`) by x then y, estates by
 * numeric id.
 */
export async function assetsOwnedBy(
  sql: Sql,
  type: AssetType,
  address: string,
  page: { limit: number; offset: number },
): Promise<IdPage> {
  const [table, id, order] =
    type === 'parcel'
      ? [sql('parcels'), sql`x || ',' || y`, sql`x, y`]
      : [sql('estates'), sql`id`, sql`length(id), id`]
  const [rows, [count]] = await Promise.all([
    sql<Array<{ id: string }>>`
      select ${id} as id from ${table} where owner = ${address}
      order by ${order} limit ${page.limit} offset ${page.offset}`,
    sql<Array<{ total: number }>>`select count(*)::int as total from ${table} where owner = ${address}`,
  ])
  return { ids: rows.map((r) => r.id), total: count?.total ?? 0 }
}
