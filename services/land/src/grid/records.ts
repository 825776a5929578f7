import type { PublicationRecord } from '../db/rows.js'

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
