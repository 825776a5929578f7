import type { Sql } from '@genesis/common'
import { forgetIndexing } from '../db/chain-state.js'
import { generateGenesisCity, readSourceData, type SeedSet } from '../seed/genesis-city.js'
import { type Progress, writeSeedSet } from '../seed/write.js'

/**
 * What does not live on chain: the Genesis City districts, contributions and auction results, with every
 * parcel unowned, no estates and no listings (the chain brings those). For a database that follows a chain.
 */
export function layoutOnly(set: SeedSet): SeedSet {
  return {
    districts: set.districts,
    contributions: set.contributions,
    estates: [],
    publications: [],
    parcels: set.parcels.map((p) => ({
      ...p,
      owner: null,
      estate_id: null,
      data_version: 0,
      name: '',
      description: '',
      ipns: '',
      last_transferred_at: null,
    })),
  }
}

/** Loads the layout and forgets any indexing, so the indexer starts over from LAND_START_BLOCK. */
export async function seedLayout(sql: Sql, progress?: Progress): Promise<void> {
  await writeSeedSet(sql, layoutOnly(generateGenesisCity(readSourceData())), progress)
  await forgetIndexing(sql)
}
