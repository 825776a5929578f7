import type { Sql } from '@genesis/common'
import { forgetIndexing } from '../db/chain-state.js'
import { blankParcel } from '../db/rows.js'
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
      ...blankParcel(p.x, p.y),
      district_id: p.district_id,
      auction_price: p.auction_price,
      auction_owner: p.auction_owner,
    })),
  }
}

/** Loads the layout and forgets any indexing, so the indexer starts over from LAND_START_BLOCK. */
export async function seedLayout(sql: Sql, progress?: Progress): Promise<void> {
  await writeSeedSet(sql, layoutOnly(generateGenesisCity(readSourceData())), progress)
  await forgetIndexing(sql)
}
