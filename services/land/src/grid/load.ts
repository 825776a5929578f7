import type { Sql } from '@genesis/common'
import { loadAllEstates, loadAllParcels, loadDistricts, loadOpenPublications } from '../db/assets.js'
import { readCursor } from '../db/chain-state.js'
import { buildGridData, type GridData } from './data.js'

/** Reads everything the index needs in one consistent (repeatable read) snapshot of the database. */
export async function loadGridData(sql: Sql, now = Date.now()): Promise<GridData> {
  const input = await sql.begin('isolation level repeatable read read only', async (tx) => {
    const parcels = await loadAllParcels(tx)
    const estates = await loadAllEstates(tx)
    const districts = await loadDistricts(tx)
    const open = await loadOpenPublications(tx, now)
    const blockHash = (await readCursor(tx))?.blockHash ?? null
    return { parcels, estates, districts, open, blockHash }
  })
  return buildGridData(input)
}
