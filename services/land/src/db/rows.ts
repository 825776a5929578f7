import type { Queryable } from '@genesis/common'
import type { AssetType } from '../domain/constants.js'
import type { Cell } from '../domain/geometry.js'
import type { Publication } from '../schemas/resources.js'

/*
 * The land tables' rows as the service reads and writes them (timestamps as ISO 8601 strings, bigints as
 * numbers): what the index, the listings, the seed and the import share.
 */

export interface ParcelRecord {
  x: number
  y: number
  owner: string | null
  district_id: string | null
  estate_id: string | null
  data_version: number
  name: string
  description: string
  ipns: string
  auction_price: number | null
  auction_owner: string | null
  last_transferred_at: string | null
}

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

/** An estate's row. */
export interface EstateRow {
  id: string
  owner: string | null
  name: string
  description: string
  district_id: string | null
  tx_hash: string | null
  last_transferred_at: string | null
}

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

export type PublicationRecord = Publication

export interface ContributionRecord {
  address: string
  district_id: string
  land_count: number
}

/** The key of an asset's publications: `type:asset_id`. */
export const assetKey = (type: AssetType, assetId: string) => `${type}:${assetId}`

/** postgres returns timestamptz as Date; the API speaks ISO 8601. */
export const isoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString())

/** A row as postgres returns it, before its timestamp becomes a string. */
export type AsRead<Row extends { last_transferred_at: string | null }> = Omit<Row, 'last_transferred_at'> & {
  last_transferred_at: Date | null
}

/** The row with its timestamp as the API speaks it. */
export const fromRead = <Row extends { last_transferred_at: string | null }>(row: AsRead<Row>): Row =>
  ({ ...row, last_transferred_at: isoOrNull(row.last_transferred_at) }) as Row

export const parcelColumns = (sql: Queryable) => sql`
  x, y, owner, district_id::text as district_id, estate_id, data_version, name, description, ipns,
  auction_price, auction_owner, last_transferred_at`

/** bigint columns come back as numbers (all of them are far below 2^53). */
export const publicationColumns = (sql: Queryable) => sql`
  tx_hash, tx_status, owner, price, status, buyer, contract_id, block_number::float8 as block_number,
  expires_at::float8 as expires_at, block_time_created_at::float8 as block_time_created_at,
  block_time_updated_at::float8 as block_time_updated_at, type, asset_id, marketplace_id`
