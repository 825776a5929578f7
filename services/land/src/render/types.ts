import type { Cell } from '../domain/geometry.js'

/**
 * What a map image is drawn from: the renderer states what it needs, the grid index (grid/) provides it.
 * Cells are indexed as domain/geometry.ts lays them out.
 */

export interface MapSnapshot {
  /** Changes whenever the underlying data changes (used in ETag and image cache key). */
  version: string
  /** Length 301*301, a TILE_* code (domain/tiles.ts) per cell. */
  kind: Uint8Array
  /**
   * 0 = not joined; cells with the same non-zero value and kind are drawn joined
   * (one value per estate, per district, one for all roads, one for all plazas).
   */
  group: Int32Array
  /** 1 when the parcel (or its estate) has an active open publication. */
  onSale: Uint8Array
}

export interface MapSource {
  /** The current snapshot, O(1). */
  snapshot(): MapSnapshot
  /** The parcels of an estate; undefined = unknown estate. */
  estateParcels(id: string): Cell[] | undefined
}
