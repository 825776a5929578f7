import type { AssetType } from '../domain/constants.js'
import type { Publication } from '../schemas/resources.js'

/** A parcel as stored (timestamps already ISO strings); what the index and the listings start from. */
export interface ParcelRecord {
  x: number
  y: number
  owner: string | null
  district_id: string | null
  estate_id: string | null
  data_version: number
  name: string
  description: string
  ipns: string
  auction_price: number | null
  auction_owner: string | null
  last_transferred_at: string | null
}

export interface EstateRecord {
  id: string
  owner: string | null
  name: string
  description: string
  district_id: string | null
  tx_hash: string | null
  last_transferred_at: string | null
  /** Sorted by x, then y. */
  parcels: Array<{ x: number; y: number }>
}

export interface DistrictRecord {
  id: string
  name: string
  description: string
  link: string
  public: boolean
}

export type PublicationRecord = Publication

export const assetKey = (type: AssetType, assetId: string) => `${type}:${assetId}`

export const blankParcel = (x: number, y: number): ParcelRecord => ({
  x,
  y,
  owner: null,
  district_id: null,
  estate_id: null,
  data_version: 0,
  name: '',
  description: '',
  ipns: '',
  auction_price: null,
  auction_owner: null,
  last_transferred_at: null,
})

/**
 * The publication an asset shows: the newest open one that has not expired at `now`.
 * `open` is the asset's open publications, newest first.
 */
export function activePublication(
  open: readonly PublicationRecord[] | undefined,
  now: number,
): PublicationRecord | null {
  if (!open) return null
  for (const publication of open) if (publication.expires_at > now) return publication
  return null
}
