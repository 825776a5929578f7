import type { Sql } from '@genesis/common'
import type { SeedSet } from './genesis-city.js'

export type Progress = (done: number, total: number, step: string) => void

const CHUNK = 10_000

function chunks<T>(rows: T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/**
 * Replaces every land table's content with the set, in one transaction: re-running gives the same state,
 * and a failure leaves the previous one. Rows go in as column arrays through unnest (one round trip per
 * chunk of 10,000 rows).
 */
export async function writeSeedSet(sql: Sql, set: SeedSet, progress: Progress = () => {}): Promise<void> {
  const total =
    set.districts.length +
    set.estates.length +
    set.parcels.length +
    set.publications.length +
    set.contributions.length
  let done = 0
  const step = (rows: number, label: string) => {
    done += rows
    progress(done, total, label)
  }
  progress(0, total, 'districts')
  await sql.begin(async (tx) => {
    await tx`truncate publications, contributions, parcels, estates, districts`

    const d = set.districts
    await tx`
      insert into districts (id, name, description, link, public)
      select * from unnest(${d.map((r) => r.id)}::uuid[], ${d.map((r) => r.name)}::text[],
        ${d.map((r) => r.description)}::text[], ${d.map((r) => r.link)}::text[], ${d.map((r) => String(r.public))}::boolean[])`
    step(d.length, 'estates')

    for (const e of chunks(set.estates)) {
      await tx`
        insert into estates (id, owner, name, description, district_id, tx_hash, last_transferred_at)
        select * from unnest(${e.map((r) => r.id)}::text[], ${e.map((r) => r.owner)}::text[],
          ${e.map((r) => r.name)}::text[], ${e.map((r) => r.description)}::text[],
          ${e.map((r) => r.district_id)}::uuid[], ${e.map((r) => r.tx_hash)}::text[],
          ${e.map((r) => r.last_transferred_at)}::timestamptz[])`
      step(e.length, 'estates')
    }

    for (const p of chunks(set.parcels)) {
      await tx`
        insert into parcels (x, y, owner, district_id, estate_id, data_version, name, description, ipns,
          auction_price, auction_owner, last_transferred_at)
        select * from unnest(${p.map((r) => r.x)}::smallint[], ${p.map((r) => r.y)}::smallint[],
          ${p.map((r) => r.owner)}::text[], ${p.map((r) => r.district_id)}::uuid[], ${p.map((r) => r.estate_id)}::text[],
          ${p.map((r) => r.data_version)}::int[], ${p.map((r) => r.name)}::text[],
          ${p.map((r) => r.description)}::text[], ${p.map((r) => r.ipns)}::text[],
          ${p.map((r) => r.auction_price)}::float8[], ${p.map((r) => r.auction_owner)}::text[],
          ${p.map((r) => r.last_transferred_at)}::timestamptz[])`
      step(p.length, 'parcels')
    }

    for (const p of chunks(set.publications)) {
      await tx`
        insert into publications (tx_hash, tx_status, owner, price, status, buyer, contract_id, block_number,
          expires_at, block_time_created_at, block_time_updated_at, type, asset_id, marketplace_id)
        select * from unnest(${p.map((r) => r.tx_hash)}::text[], ${p.map((r) => r.tx_status)}::text[],
          ${p.map((r) => r.owner)}::text[], ${p.map((r) => r.price)}::float8[], ${p.map((r) => r.status)}::text[],
          ${p.map((r) => r.buyer)}::text[], ${p.map((r) => r.contract_id)}::text[],
          ${p.map((r) => r.block_number)}::bigint[], ${p.map((r) => r.expires_at)}::bigint[],
          ${p.map((r) => r.block_time_created_at)}::bigint[], ${p.map((r) => r.block_time_updated_at)}::bigint[],
          ${p.map((r) => r.type)}::text[], ${p.map((r) => r.asset_id)}::text[], ${p.map((r) => r.marketplace_id)}::text[])`
      step(p.length, 'publications')
    }

    for (const c of chunks(set.contributions)) {
      await tx`
        insert into contributions (address, district_id, land_count)
        select * from unnest(${c.map((r) => r.address)}::text[], ${c.map((r) => r.district_id)}::uuid[],
          ${c.map((r) => r.land_count)}::int[])`
      step(c.length, 'contributions')
    }
  })
}
