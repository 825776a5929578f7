import type { EstateRecord, ParcelRecord } from '../grid/records.js'
import type { Queryable } from './queryable.js'

/*
 * Bulk upserts shared by the seed and the import: rows go in as column arrays through unnest, one round
 * trip per chunk, and an existing row (same natural key) is updated in place.
 */

const CHUNK = 5000

export function chunks<T>(rows: T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/** What the bulk writes need of an estate: its row, without the parcel list kept in the index. */
export type EstateRow = Omit<EstateRecord, 'parcels' | 'last_transferred_at'> & {
  last_transferred_at: string | Date | null
}
export type ParcelRow = Omit<ParcelRecord, 'last_transferred_at'> & {
  last_transferred_at: string | Date | null
}

export interface PublicationRow {
  tx_hash: string
  tx_status: string
  owner: string
  price: number
  status: string
  buyer: string | null
  contract_id: string
  block_number: number | string
  expires_at: number | string
  block_time_created_at: number | string
  block_time_updated_at: number | string | null
  type: string
  asset_id: string
  marketplace_id: string
}

export interface ContributionRow {
  address: string
  district_id: string
  land_count: number
}

export async function upsertEstates(
  tx: Queryable,
  rows: EstateRow[],
  onChunk: (n: number) => void = () => {},
) {
  for (const e of chunks(rows)) {
    await tx`
      insert into estates (id, owner, name, description, district_id, tx_hash, last_transferred_at)
      select * from unnest(${e.map((r) => r.id)}::text[], ${e.map((r) => r.owner)}::text[],
        ${e.map((r) => r.name)}::text[], ${e.map((r) => r.description)}::text[],
        ${e.map((r) => r.district_id)}::uuid[], ${e.map((r) => r.tx_hash)}::text[],
        ${e.map((r) => r.last_transferred_at)}::timestamptz[])
      on conflict (id) do update set owner = excluded.owner, name = excluded.name,
        description = excluded.description, district_id = excluded.district_id, tx_hash = excluded.tx_hash,
        last_transferred_at = excluded.last_transferred_at, updated_at = now()`
    onChunk(e.length)
  }
}

export async function upsertParcels(
  tx: Queryable,
  rows: ParcelRow[],
  onChunk: (n: number) => void = () => {},
) {
  for (const p of chunks(rows)) {
    await tx`
      insert into parcels (x, y, owner, district_id, estate_id, data_version, name, description, ipns,
        auction_price, auction_owner, last_transferred_at)
      select * from unnest(${p.map((r) => r.x)}::smallint[], ${p.map((r) => r.y)}::smallint[],
        ${p.map((r) => r.owner)}::text[], ${p.map((r) => r.district_id)}::uuid[], ${p.map((r) => r.estate_id)}::text[],
        ${p.map((r) => r.data_version)}::int[], ${p.map((r) => r.name)}::text[],
        ${p.map((r) => r.description)}::text[], ${p.map((r) => r.ipns)}::text[],
        ${p.map((r) => r.auction_price)}::float8[], ${p.map((r) => r.auction_owner)}::text[],
        ${p.map((r) => r.last_transferred_at)}::timestamptz[])
      on conflict (x, y) do update set owner = excluded.owner, district_id = excluded.district_id,
        estate_id = excluded.estate_id, data_version = excluded.data_version, name = excluded.name,
        description = excluded.description, ipns = excluded.ipns, auction_price = excluded.auction_price,
        auction_owner = excluded.auction_owner, last_transferred_at = excluded.last_transferred_at,
        updated_at = now()`
    onChunk(p.length)
  }
}

export async function upsertPublications(
  tx: Queryable,
  rows: PublicationRow[],
  onChunk: (n: number) => void = () => {},
) {
  for (const p of chunks(rows)) {
    await tx`
      insert into publications (tx_hash, tx_status, owner, price, status, buyer, contract_id, block_number,
        expires_at, block_time_created_at, block_time_updated_at, type, asset_id, marketplace_id)
      select * from unnest(${p.map((r) => r.tx_hash)}::text[], ${p.map((r) => r.tx_status)}::text[],
        ${p.map((r) => r.owner)}::text[], ${p.map((r) => r.price)}::float8[], ${p.map((r) => r.status)}::text[],
        ${p.map((r) => r.buyer)}::text[], ${p.map((r) => r.contract_id)}::text[],
        ${p.map((r) => r.block_number)}::bigint[], ${p.map((r) => r.expires_at)}::bigint[],
        ${p.map((r) => r.block_time_created_at)}::bigint[], ${p.map((r) => r.block_time_updated_at)}::bigint[],
        ${p.map((r) => r.type)}::text[], ${p.map((r) => r.asset_id)}::text[], ${p.map((r) => r.marketplace_id)}::text[])
      on conflict (tx_hash) do update set tx_status = excluded.tx_status, owner = excluded.owner,
        price = excluded.price, status = excluded.status, buyer = excluded.buyer,
        contract_id = excluded.contract_id, block_number = excluded.block_number, expires_at = excluded.expires_at,
        block_time_created_at = excluded.block_time_created_at,
        block_time_updated_at = excluded.block_time_updated_at, type = excluded.type,
        asset_id = excluded.asset_id, marketplace_id = excluded.marketplace_id, updated_at = now()`
    onChunk(p.length)
  }
}

export async function insertContributions(
  tx: Queryable,
  rows: ContributionRow[],
  onChunk: (n: number) => void = () => {},
) {
  for (const c of chunks(rows)) {
    await tx`
      insert into contributions (address, district_id, land_count)
      select * from unnest(${c.map((r) => r.address)}::text[], ${c.map((r) => r.district_id)}::uuid[],
        ${c.map((r) => r.land_count)}::int[])`
    onChunk(c.length)
  }
}
