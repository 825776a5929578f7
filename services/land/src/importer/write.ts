import type { Sql } from '@genesis/common'
import {
  deleteContributionsOf,
  insertContributions,
  setMembership,
  upsertDistrict,
  upsertEstates,
  upsertParcels,
  upsertPublications,
} from '../db/writes.js'
import type { ImportPlan } from './validate.js'

/**
 * Writes a checked plan in one transaction: upserts by natural key (district id, estate id, parcel x,y,
 * tx_hash); an address's contributions are replaced as a whole. Nothing is written if any statement fails.
 */
export async function writeImport(sql: Sql, plan: ImportPlan): Promise<void> {
  await sql.begin(async (tx) => {
    for (const d of plan.districts) await upsertDistrict(tx, d)
    await upsertEstates(tx, plan.estates)
    for (const d of plan.districts) if (d.parcels) await setMembership(tx, 'district_id', d.id, d.parcels)
    await upsertParcels(tx, plan.parcels)
    for (const e of plan.estates) if (e.parcels) await setMembership(tx, 'estate_id', e.id, e.parcels)
    await upsertPublications(tx, plan.publications)
    if (plan.contributions.length > 0) {
      const addresses = [...new Set(plan.contributions.map((c) => c.address))]
      await deleteContributionsOf(tx, addresses)
      await insertContributions(tx, plan.contributions)
    }
  })
}
