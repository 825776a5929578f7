import type { Sql } from '@genesis/common'
import {
  insertContributions,
  insertDistricts,
  truncateLand,
  upsertEstates,
  upsertParcels,
  upsertPublications,
} from '../db/writes.js'
import type { SeedSet } from './genesis-city.js'

export type Progress = (done: number, total: number, step: string) => void

/**
 * Replaces every land table's content with the set, in one transaction: re-running gives the same state,
 * and a failure leaves the previous one. Rows go in through the bulk upserts shared with the import.
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
    await truncateLand(tx)
    await insertDistricts(tx, set.districts)
    step(set.districts.length, 'estates')

    await upsertEstates(tx, set.estates, (n) => step(n, 'estates'))
    await upsertParcels(tx, set.parcels, (n) => step(n, 'parcels'))
    await upsertPublications(tx, set.publications, (n) => step(n, 'publications'))
    await insertContributions(tx, set.contributions, (n) => step(n, 'contributions'))
  })
}
