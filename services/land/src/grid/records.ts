import type { ParcelRecord, PublicationRecord } from '../db/rows.js'

/** A parcel with no row data: what a cell shows before anything is known of it. */
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
