import type { Queryable } from '@genesis/common'
import type { AssetType } from '../domain/constants.js'
import type { Cell } from '../domain/geometry.js'
import {
  assetKey,
  type DistrictRecord,
  type EstateRecord,
  estateColumns,
  fromRead,
  type ParcelRecord,
  type PublicationRecord,
  parcelColumns,
  publicationColumns,
} from './rows.js'
import { estates as estateTable, parcels as parcelTable, type ReadRowOf } from './tables.js'

type ReadParcel = ReadRowOf<typeof parcelTable.columns>
type ReadEstate = ReadRowOf<typeof estateTable.columns>
const readParcel = fromRead(parcelTable)
const readEstate = fromRead(estateTable)

/**
 * Loaders shared by the index build (everything) and the listings (a page of assets), so both render
 * the same records the same way.
 */

export async function loadAllParcels(sql: Queryable): Promise<ParcelRecord[]> {
  const rows = await sql<ReadParcel[]>`select ${parcelColumns(sql)} from parcels`
  return rows.map(readParcel)
}

/** The parcels with these ids (`x,y`, canonical), in no particular order. */
export async function loadParcelsAt(sql: Queryable, ids: string[]): Promise<ParcelRecord[]> {
  if (ids.length === 0) return []
  const rows = await sql<ReadParcel[]>`
    select ${parcelColumns(sql)} from parcels
    where (x, y) in (
      select split_part(id, ',', 1)::int, split_part(id, ',', 2)::int from unnest(${ids}::text[]) as id)`
  return rows.map(readParcel)
}

async function withParcels(sql: Queryable, rows: ReadEstate[], all: boolean): Promise<EstateRecord[]> {
  const ids = rows.map((r) => r.id)
  const members = await sql<Array<{ estate_id: string; x: number; y: number }>>`
    select estate_id, x, y from parcels
    where ${all ? sql`estate_id is not null` : sql`estate_id = any(${ids}::text[])`}
    order by estate_id, x, y`
  const parcels = new Map<string, Cell[]>()
  for (const { estate_id, x, y } of members) {
    let list = parcels.get(estate_id)
    if (!list) {
      list = []
      parcels.set(estate_id, list)
    }
    list.push({ x, y })
  }
  return rows.map((row) => ({ ...readEstate(row), parcels: parcels.get(row.id) ?? [] }))
}

export async function loadAllEstates(sql: Queryable): Promise<EstateRecord[]> {
  const rows = await sql<ReadEstate[]>`select ${estateColumns(sql)} from estates`
  return withParcels(sql, rows, true)
}

/** The estates with these ids, in the order given (unknown ids are left out). */
export async function loadEstatesById(sql: Queryable, ids: string[]): Promise<EstateRecord[]> {
  if (ids.length === 0) return []
  const rows = await sql<
    ReadEstate[]
  >`select ${estateColumns(sql)} from estates where id = any(${ids}::text[])`
  const byId = new Map((await withParcels(sql, rows, false)).map((e) => [e.id, e]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

export async function loadDistricts(sql: Queryable): Promise<DistrictRecord[]> {
  return sql<DistrictRecord[]>`
    select id::text as id, name, description, link, public from districts order by lower(name), id`
}

/**
 * Open publications that have not expired at `now`, newest first per asset (key `type:asset_id`).
 * With `assets`, only those assets' publications are read.
 */
export async function loadOpenPublications(
  sql: Queryable,
  now: number,
  assets?: { type: AssetType; ids: string[] },
): Promise<Map<string, PublicationRecord[]>> {
  if (assets && assets.ids.length === 0) return new Map()
  const rows = await sql<PublicationRecord[]>`
    select ${publicationColumns(sql)} from publications
    where status = 'open' and expires_at > ${now}
      ${assets ? sql`and type = ${assets.type} and asset_id = any(${assets.ids}::text[])` : sql``}
    order by type, asset_id, block_time_created_at desc, tx_hash desc`
  const byAsset = new Map<string, PublicationRecord[]>()
  for (const row of rows) {
    const key = assetKey(row.type, row.asset_id)
    let list = byAsset.get(key)
    if (!list) {
      list = []
      byAsset.set(key, list)
    }
    list.push(row)
  }
  return byAsset
}

/** True while the land tables hold no district: nothing has been seeded or imported yet. */
export async function isLandEmpty(sql: Queryable): Promise<boolean> {
  const [row] = await sql<Array<{ empty: boolean }>>`select not exists (select 1 from districts) as empty`
  return row?.empty ?? true
}

/** Every district id and estate id the database holds, for an import's reference checks. */
export async function existingIds(
  sql: Queryable,
): Promise<{ districtIds: Set<string>; estateIds: Set<string> }> {
  const [districts, estates] = await Promise.all([
    sql<Array<{ id: string }>>`select id::text as id from districts`,
    sql<Array<{ id: string }>>`select id from estates`,
  ])
  return { districtIds: new Set(districts.map((d) => d.id)), estateIds: new Set(estates.map((e) => e.id)) }
}
