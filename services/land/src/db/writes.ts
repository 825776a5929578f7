import type { Queryable } from '@genesis/common'
import type { Cell } from '../domain/geometry.js'
import type {
  ContributionRecord,
  DistrictRecord,
  EstateRow,
  ParcelRecord,
  PublicationRecord,
} from './rows.js'
import { chunks, upsertRows } from './table-sql.js'
import { estates, parcels, publications } from './tables.js'

/*
 * The writes of the seed and the import. The bulk ones are the tables' upserts (src/db/table-sql.ts): one
 * round trip per chunk, an existing row (same natural key) updated in place, every column replaced.
 */

export async function upsertEstates(
  tx: Queryable,
  rows: readonly EstateRow[],
  onChunk: (n: number) => void = () => {},
) {
  await upsertRows(tx, estates, rows, 'all', onChunk)
}

export async function upsertParcels(
  tx: Queryable,
  rows: readonly ParcelRecord[],
  onChunk: (n: number) => void = () => {},
) {
  await upsertRows(tx, parcels, rows, 'all', onChunk)
}

export async function upsertPublications(
  tx: Queryable,
  rows: readonly PublicationRecord[],
  onChunk: (n: number) => void = () => {},
) {
  await upsertRows(tx, publications, rows, 'all', onChunk)
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
