import type { Sql } from '@genesis/common'
import type { Queryable } from '../db/queryable.js'
import type { ImportPlan } from './validate.js'

const CHUNK = 5000

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK))
  return out
}

type Tx = Queryable

async function setMembership(
  tx: Tx,
  column: 'estate_id' | 'district_id',
  id: string,
  parcels: Array<{ x: number; y: number }>,
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

/**
 * Writes a checked plan in one transaction: upserts by natural key (district id, estate id, parcel x,y,
 * tx_hash); an address's contributions are replaced as a whole. Nothing is written if any statement fails.
 */
export async function writeImport(sql: Sql, plan: ImportPlan): Promise<void> {
  await sql.begin(async (tx) => {
    for (const d of plan.districts) {
      await tx`
        insert into districts (id, name, description, link, public)
        values (${d.id}, ${d.name}, ${d.description}, ${d.link}, ${d.public})
        on conflict (id) do update set name = excluded.name, description = excluded.description,
          link = excluded.link, public = excluded.public, updated_at = now()`
    }
    for (const e of chunks(plan.estates)) {
      await tx`
        insert into estates (id, owner, name, description, district_id, tx_hash, last_transferred_at)
        select * from unnest(${e.map((r) => r.id)}::text[], ${e.map((r) => r.owner)}::text[],
          ${e.map((r) => r.name)}::text[], ${e.map((r) => r.description)}::text[],
          ${e.map((r) => r.district_id)}::uuid[], ${e.map((r) => r.tx_hash)}::text[],
          ${e.map((r) => r.last_transferred_at)}::timestamptz[])
        on conflict (id) do update set owner = excluded.owner, name = excluded.name,
          description = excluded.description, district_id = excluded.district_id, tx_hash = excluded.tx_hash,
          last_transferred_at = excluded.last_transferred_at, updated_at = now()`
    }
    for (const d of plan.districts) if (d.parcels) await setMembership(tx, 'district_id', d.id, d.parcels)
    for (const p of chunks(plan.parcels)) {
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
    }
    for (const e of plan.estates) if (e.parcels) await setMembership(tx, 'estate_id', e.id, e.parcels)
    for (const p of chunks(plan.publications)) {
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
    }
    if (plan.contributions.length > 0) {
      const addresses = [...new Set(plan.contributions.map((c) => c.address))]
      await tx`delete from contributions where address = any(${addresses}::text[])`
      for (const c of chunks(plan.contributions)) {
        await tx`
          insert into contributions (address, district_id, land_count)
          select * from unnest(${c.map((r) => r.address)}::text[], ${c.map((r) => r.district_id)}::uuid[],
            ${c.map((r) => r.land_count)}::int[])`
      }
    }
  })
}
