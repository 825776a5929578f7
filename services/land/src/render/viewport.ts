import type { Cell } from '../domain/geometry.js'
import { tooManyParcels } from '../errors.js'

/** Parcels one image may draw (README "PNG maps"): what the drawing loops and the tile plan cost. */
export const MAX_PARCELS = 15_000

/**
 * Pixels one image may have: the renderer draws straight into the PNG's rows, one byte per pixel (and one
 * per row), so this caps one render's image at about 4 MiB, beside the compressor's state and the PNG.
 * 2048 × 2048, the land API's own largest image.
 */
export const MAX_PIXELS = 2048 * 2048

/** The widest or tallest image any route asks for (atlas-server's clamp on /v2). */
export const MAX_SIDE = 4096

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

/**
 * When an image would draw too many parcels. `status`: the land API answers the 500 its specification
 * fixes; the /v2 surface answers 400 (atlas-server has no such limit, so no status of its own to keep).
 */
export function assertParcelLimit(viewport: Viewport, status: 400 | 500 = 500, max = MAX_PARCELS): void {
  if (viewport.parcels > max) {
    throw tooManyParcels(viewport.parcels, max, status)
  }
}

/**
 * Width and height scaled down together (the same factor, whole pixels) until the image fits the pixel
 * budget; within it they are unchanged. A larger image asked of the /v2 surface is drawn smaller around
 * the same centre at the same parcel size, as atlas-server clamps its other parameters.
 */
export function fitPixelBudget(
  width: number,
  height: number,
  max = MAX_PIXELS,
): { width: number; height: number } {
  if (width * height <= max) return { width, height }
  const factor = Math.sqrt(max / (width * height))
  let w = Math.max(1, Math.floor(width * factor))
  let h = Math.max(1, Math.floor(height * factor))
  // floating point may leave it a pixel over
  while (w * h > max) {
    if (w >= h) w--
    else h--
  }
  return { width: w, height: h }
}
