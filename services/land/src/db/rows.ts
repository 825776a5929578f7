import type { Queryable } from '@genesis/common'
import type { Publication } from '@genesis/wire/land'
import type { AssetType } from '../domain/constants.js'
import type { Cell } from '../domain/geometry.js'
import { selectList } from './table-sql.js'
import {
  type Columns,
  type EstateRow,
  estates,
  type ParcelRow,
  type PublicationRow,
  parcels,
  publications,
  type ReadRowOf,
  type RowOf,
  type TableSpec,
  timestampColumnsOf,
} from './tables.js'

/*
 * The land tables' rows as the service reads and writes them (timestamps as ISO 8601 strings, bigints as
 * numbers): what the index, the listings, the seed and the import share.
 */

/** A parcel's row (src/db/tables.ts describes it). */
export type ParcelRecord = ParcelRow

/** A parcel nothing is known of: every cell's row before data arrives, and what a cell shows then. */
export const blankParcel = (x: number, y: number): ParcelRecord => ({
  x,
  y,
  owner: null,
  district_id: null,
  estate_id: null,
  data_version: 0,
  name: '',
  description: '',
  ipns: '',
  auction_price: null,
  auction_owner: null,
  last_transferred_at: null,
})

export type { EstateRow }

/** An estate's row with its parcels (the parcels whose estate_id it is), sorted by x, then y. */
export interface EstateRecord extends EstateRow {
  parcels: Cell[]
}

export interface DistrictRecord {
  id: string
  name: string
  description: string
  link: string
  public: boolean
}

/** A publication's row: the API's shape too (the check below keeps the two equal). */
export type PublicationRecord = PublicationRow
const sameShape: [PublicationRecord, Publication] extends [Publication, PublicationRecord] ? true : never =
  true
void sameShape

export interface ContributionRecord {
  address: string
  district_id: string
  land_count: number
}

/** The key of an asset's publications: `type:asset_id`. */
export const assetKey = (type: AssetType, assetId: string) => `${type}:${assetId}`

/** postgres returns timestamptz as Date; the API speaks ISO 8601. */
export const isoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString())

/** The row with its timestamps as the API speaks them (the table's timestamptz columns). */
export function fromRead<C extends Columns>(t: TableSpec<C>): (row: ReadRowOf<C>) => RowOf<C> {
  const timestamps = timestampColumnsOf(t)
  return (row) => {
    const out: Record<string, unknown> = { ...row }
    for (const c of timestamps) out[c] = isoOrNull(out[c] as Date | null)
    return out as RowOf<C>
  }
}

/** The parcels' columns as the service reads them. */
export const parcelColumns = (sql: Queryable) => selectList(sql, parcels)

export const estateColumns = (sql: Queryable) => selectList(sql, estates)

/** bigint columns come back as numbers (all of them are far below 2^53). */
export const publicationColumns = (sql: Queryable) => selectList(sql, publications)
