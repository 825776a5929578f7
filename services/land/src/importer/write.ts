import type { Sql } from '@genesis/common'
import { insertContributions, upsertEstates, upsertParcels, upsertPublications } from '../db/bulk-write.js'
import type { Queryable } from '../db/queryable.js'
import type { ImportPlan } from './validate.js'

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
    await upsertEstates(tx, plan.estates)
    for (const d of plan.districts) if (d.parcels) await setMembership(tx, 'district_id', d.id, d.parcels)
    await upsertParcels(tx, plan.parcels)
    for (const e of plan.estates) if (e.parcels) await setMembership(tx, 'estate_id', e.id, e.parcels)
    await upsertPublications(tx, plan.publications)
    if (plan.contributions.length > 0) {
      const addresses = [...new Set(plan.contributions.map((c) => c.address))]
      await tx`delete from contributions where address = any(${addresses}::text[])`
      await insertContributions(tx, plan.contributions)
    }
  })
}
