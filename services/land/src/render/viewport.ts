import type { Cell } from '../domain/geometry.js'
import { tooManyParcels } from '../errors.js'

export const MAX_PARCELS = 15_000

export interface ViewportInput {
  width: number
  height: number
  /** Edge in pixels of one parcel square. */
  size: number
  center: Cell
}

/**
 * Which parcels an image covers and where each lands in pixels.
 * Columns run west→east (x grows to the right), rows north→south (y shrinks downwards).
 */
export interface Viewport {
  width: number
  height: number
  size: number
  cols: number
  rows: number
  /** Parcels drawn: cols × rows. */
  parcels: number
  /** x of the left-most column. */
  minX: number
  /** y of the top row. */
  maxY: number
  /** Pixel position of the top-left corner of the cell (minX, maxY); zero or negative. */
  originX: number
  originY: number
}

const roundUpToEven = (n: number) => (n % 2 === 0 ? n : n + 1)

/**
 * The parcel count (README "Decisions"): cols = ceil(width/size + 1), rows = ceil(height/size + 1),
 * each rounded up to an even number. The centre parcel is drawn in the middle of the image (on whole
 * pixels, so edges stay crisp); cols/2 columns to its left and cols/2 - 1 to its right then always
 * cover the image, and likewise rows/2 rows above and rows/2 - 1 below.
 */
export function computeViewport({ width, height, size, center }: ViewportInput): Viewport {
  const cols = roundUpToEven(Math.ceil(width / size + 1))
  const rows = roundUpToEven(Math.ceil(height / size + 1))
  const centreLeft = Math.floor((width - size) / 2)
  const centreTop = Math.floor((height - size) / 2)
  return {
    width,
    height,
    size,
    cols,
    rows,
    parcels: cols * rows,
    minX: center.x - cols / 2,
    maxY: center.y + rows / 2,
    originX: centreLeft - (cols / 2) * size,
    originY: centreTop - (rows / 2) * size,
  }
}

/** When an image would draw too many parcels: a 500 with a fixed wording (README "Error codes"). */
export function assertParcelLimit(viewport: Viewport, max = MAX_PARCELS): void {
  if (viewport.parcels > max) {
    throw tooManyParcels(viewport.parcels, max)
  }
}
