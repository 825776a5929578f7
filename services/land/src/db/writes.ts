import type { Queryable } from '@genesis/common'
import type { Cell } from '../domain/geometry.js'
import type {
  ContributionRecord,
  DistrictRecord,
  EstateRow,
  ParcelRecord,
  PublicationRecord,
} from './rows.js'

/*
 * The writes of the seed and the import. The bulk ones send rows as column arrays through unnest, one
 * round trip per chunk, and update an existing row (same natural key) in place.
 */

const CHUNK = 5000

export function chunks<T>(rows: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

export async function upsertEstates(
  tx: Queryable,
  rows: readonly EstateRow[],
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
  rows: readonly ParcelRecord[],
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
  rows: readonly PublicationRecord[],
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
  rows: readonly ContributionRecord[],
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

/** Replaces every land table's content: the seed's first step. */
export async function truncateLand(tx: Queryable) {
  await tx`truncate publications, contributions, parcels, estates, districts`
}

/** Inserts districts into an empty table (the seed's), in one statement. */
export async function insertDistricts(tx: Queryable, rows: readonly DistrictRecord[]) {
  await tx`
    insert into districts (id, name, description, link, public)
    select * from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.name)}::text[],
      ${rows.map((r) => r.description)}::text[], ${rows.map((r) => r.link)}::text[], ${rows.map((r) => String(r.public))}::boolean[])`
}

export async function upsertDistrict(tx: Queryable, d: DistrictRecord) {
  await tx`
    insert into districts (id, name, description, link, public)
    values (${d.id}, ${d.name}, ${d.description}, ${d.link}, ${d.public})
    on conflict (id) do update set name = excluded.name, description = excluded.description,
      link = excluded.link, public = excluded.public, updated_at = now()`
}

/** Makes exactly these parcels the members of an estate or a district: others lose the membership. */
export async function setMembership(
  tx: Queryable,
  column: 'estate_id' | 'district_id',
  id: string,
  parcels: readonly Cell[],
) {
  const xs = parcels.map((p) => p.x)
  const ys = parcels.map((p) => p.y)
  const col = tx(column)
  await tx`
    update parcels set ${col} = null, updated_at = now()
    where ${col} = ${id} and (x, y) not in (select * from unnest(${xs}::int[], ${ys}::int[]))`
  await tx`
    update parcels set ${col} = ${id}, updated_at = now()
    where (x, y) in (select * from unnest(${xs}::int[], ${ys}::int[]))`
}

/** Removes every contribution of these addresses (an import replaces an address's list as a whole). */
export async function deleteContributionsOf(tx: Queryable, addresses: readonly string[]) {
  await tx`delete from contributions where address = any(${addresses}::text[])`
}
