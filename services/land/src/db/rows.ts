import type { ParcelRecord, PublicationRecord } from '../grid/records.js'
import type { Queryable } from './queryable.js'

/** postgres returns timestamptz as Date; the API speaks ISO 8601. */
export const isoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString())

export interface ParcelRow extends Omit<ParcelRecord, 'last_transferred_at'> {
  last_transferred_at: Date | null
}

export const parcelColumns = (sql: Queryable) => sql`
  x, y, owner, district_id::text as district_id, estate_id, data_version, name, description, ipns,
  auction_price, auction_owner, last_transferred_at`

export const toParcelRecord = (row: ParcelRow): ParcelRecord => ({
  ...row,
  last_transferred_at: isoOrNull(row.last_transferred_at),
})

/** bigint columns come back as numbers (all of them are far below 2^53). */
export const publicationColumns = (sql: Queryable) => sql`
  tx_hash, tx_status, owner, price, status, buyer, contract_id, block_number::float8 as block_number,
  expires_at::float8 as expires_at, block_time_created_at::float8 as block_time_created_at,
  block_time_updated_at::float8 as block_time_updated_at, type, asset_id, marketplace_id`

export type PublicationRow = PublicationRecord
