import { GRID_MAX, GRID_MIN } from '../domain/geometry.js'
import { yieldToLoop } from '../grid/json-rows.js'
import type { GridView } from '../grid/view.js'
import { encodeRgbaPng } from '../render/indexed-png.js'
import { tilesOfRow } from './tiles.js'

/**
 * The "parcel view" Decentraland's explorers read for their minimap and navmap (ADR-250), as atlas-server
 * draws it: 512 × 512 RGBA, one pixel per parcel, parcel (x, y) at column x + 256 and row 256 − y; pixels
 * outside the grid (0, 0, 0, 0), grid pixels with alpha 255.
 *
 * - minimap: red = 8 if the tile joins the one above (`top`), + 16 the one to the left (`left`), + 32 the one
 *   above-left (`topLeft`); green = 32 for a district, 64 for a road, 128 for an owned parcel, 0 otherwise
 *   (a plaza, an unowned parcel); blue 0.
 * - estatemap: red·65536 + green·256 + blue is 0 for a parcel in no estate, else an index the same for
 *   every parcel of one estate and different between estates (numbered from 1 in the order met, row by row
 *   from the top of the image).
 *
 * Both come from the same tiles as /v2/tiles (so every pixel agrees with its tile), drawn once per version
 * of the grid.
 */
export const PARCEL_VIEW_SIZE = 512
const ORIGIN = 256
const ROW_BYTES = PARCEL_VIEW_SIZE * 4 + 1

const GREEN_OF_TYPE: Record<string, number> = { district: 32, road: 64, owned: 128 }

export interface ParcelView {
  minimap: Buffer
  estatemap: Buffer
}

/** The two images of one grid view. */
export async function drawParcelView(view: GridView): Promise<ParcelView> {
  const minimap = Buffer.alloc(ROW_BYTES * PARCEL_VIEW_SIZE)
  const estatemap = Buffer.alloc(ROW_BYTES * PARCEL_VIEW_SIZE)
  const estateIndex = new Map<string, number>()
  const fields = new Set(['type', 'top', 'left', 'topLeft', 'estateId'] as const)
  // from the top row of the image (the grid's north) down, so that estates are numbered in image order
  for (let y = GRID_MAX; y >= GRID_MIN; y--) {
    const row = ORIGIN - y
    const tiles = tilesOfRow(view, y, GRID_MIN, GRID_MAX, fields)
    for (const tile of tiles) {
      const at = row * ROW_BYTES + 1 + (tile.x + ORIGIN) * 4
      minimap[at] = (tile.top ? 8 : 0) + (tile.left ? 16 : 0) + (tile.topLeft ? 32 : 0)
      minimap[at + 1] = GREEN_OF_TYPE[tile.type] ?? 0
      minimap[at + 3] = 255
      if (tile.estateId !== undefined) {
        let index = estateIndex.get(tile.estateId)
        if (index === undefined) {
          index = estateIndex.size + 1
          estateIndex.set(tile.estateId, index)
        }
        estatemap[at] = (index >> 16) & 0xff
        estatemap[at + 1] = (index >> 8) & 0xff
        estatemap[at + 2] = index & 0xff
      }
      estatemap[at + 3] = 255
    }
    if ((GRID_MAX - y) % 16 === 15) await yieldToLoop()
  }
  const [minimapPng, estatemapPng] = await Promise.all([
    encodeRgbaPng(PARCEL_VIEW_SIZE, PARCEL_VIEW_SIZE, minimap),
    encodeRgbaPng(PARCEL_VIEW_SIZE, PARCEL_VIEW_SIZE, estatemap),
  ])
  return { minimap: minimapPng, estatemap: estatemapPng }
}
