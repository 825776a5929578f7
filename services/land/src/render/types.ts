/**
 * The seam between the grid index (grid/) and the PNG renderer (render/): what a map image is drawn from.
 * Cells are stored row-major from the south-west corner: index = (y + 150) * 301 + (x + 150).
 */

export const GRID_MIN = -150
export const GRID_MAX = 150
export const GRID_SIZE = 301 // x, y in -150..150

export const cellIndex = (x: number, y: number): number => (y + 150) * 301 + (x + 150)

/** Tile kinds, one per cell in MapSnapshot.kind. */
export const TILE_UNOWNED = 0
export const TILE_OWNED = 1
export const TILE_DISTRICT = 2
export const TILE_ROAD = 3
export const TILE_PLAZA = 4

export type TileKind =
  | typeof TILE_UNOWNED
  | typeof TILE_OWNED
  | typeof TILE_DISTRICT
  | typeof TILE_ROAD
  | typeof TILE_PLAZA

export interface MapSnapshot {
  /** Changes whenever the underlying data changes (used in ETag and image cache key). */
  version: string
  /** Length 301*301, a TILE_* code per cell. */
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
  estateParcels(id: string): Array<{ x: number; y: number }> | undefined
}
