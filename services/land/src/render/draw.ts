import { type Cell, cellIndex, GRID_MAX, GRID_MIN } from '../domain/geometry.js'
import { TILE_DISTRICT, TILE_OWNED, TILE_PLAZA, TILE_ROAD, TILE_UNOWNED } from '../domain/tiles.js'
import { blankImage, encodeIndexedPng, type IndexedImage, imageBytes, paletteBytes } from './indexed-png.js'
import type { ScratchBuffers } from './scratch.js'
import type { MapSnapshot } from './types.js'
import { assertParcelLimit, computeViewport, MAX_PIXELS, type Viewport } from './viewport.js'

/** Decentraland's atlas colours, so that the PNGs look like the atlas's maps. */
export const COLORS = {
  background: '#18141a',
  checkerEven: '#110e13',
  checkerOdd: '#0d0b0e',
  unowned: '#09080A',
  owned: '#3D3A46',
  district: '#5054D4',
  road: '#716C7A',
  plaza: '#70AC76',
  onSale: '#1FBCFF',
  selected: '#ff0044',
  selectedFrame: '#ff9990',
} as const

// Paint codes: 0..4 are the TILE_* kinds, so a cell's kind is its paint unless something outranks it.
const PAINT_ON_SALE = 5
const PAINT_SELECTED = 6
const PAINT_FRAME = 7
const PAINT_CHECKER_EVEN = 8
const PAINT_CHECKER_ODD = 9
const PAINT_COUNT = 10

// Tiles never overlap one another, so their order is free; frames go over their neighbours and under
// the selected tiles.
const DRAW_ORDER: readonly number[] = [
  TILE_UNOWNED,
  TILE_OWNED,
  TILE_DISTRICT,
  TILE_ROAD,
  TILE_PLAZA,
  PAINT_ON_SALE,
  PAINT_CHECKER_EVEN,
  PAINT_CHECKER_ODD,
  PAINT_FRAME,
  PAINT_SELECTED,
]

const PAINT_COLORS: readonly string[] = [
  COLORS.unowned,
  COLORS.owned,
  COLORS.district,
  COLORS.road,
  COLORS.plaza,
  COLORS.onSale,
  COLORS.selected,
  COLORS.selectedFrame,
  COLORS.checkerEven,
  COLORS.checkerOdd,
]

// Palette index of a paint is paint + 1; index 0 is the background.
const PALETTE = paletteBytes([COLORS.background, ...PAINT_COLORS])

/** Background between tiles: about a tenth of a tile, at least one pixel, whole pixels only. */
export const tileGap = (size: number) => Math.max(1, Math.round(size / 10))

/** Thickness of the frame drawn around selected tiles. */
export const frameWidth = (size: number) => Math.max(1, Math.round(size / 8))

export interface DrawOptions {
  /** Paint parcels on sale in the on-sale colour. */
  publications: boolean
  /** Parcels drawn as selected (must be inside the grid). */
  selected: readonly Cell[]
  /**
   * atlas-server's placement (the /v2 images): its tiles leave their gap on the left edge, not the right,
   * so every tile sits `gap` pixels further right than in the spec's images, and an overlay of both agrees.
   */
  atlasPlacement?: boolean
}

export interface MapImageRequest extends DrawOptions {
  width: number
  height: number
  size: number
  center: Cell
}

/** Rectangles to fill, grouped by paint so that the canvas changes fillStyle once per colour. */
export class RectBatches {
  private readonly batches: number[][] = Array.from({ length: PAINT_COUNT }, () => [])

  add(paint: number, x: number, y: number, w: number, h: number): void {
    this.batches[paint]!.push(x, y, w, h)
  }

  /** Fills every rectangle, clipped to the image, one paint after another in `order`. */
  flush(image: IndexedImage, order: readonly number[]): void {
    const { width, height, rows } = image
    const stride = width + 1
    for (const paint of order) {
      const rects = this.batches[paint]!
      const index = paint + 1
      for (let i = 0; i < rects.length; i += 4) {
        const x0 = Math.max(0, rects[i]!)
        const x1 = Math.min(width, rects[i]! + rects[i + 2]!)
        if (x1 <= x0) continue
        const y0 = Math.max(0, rects[i + 1]!)
        const y1 = Math.min(height, rects[i + 1]! + rects[i + 3]!)
        // each row starts with its filter byte, then the pixels
        for (let y = y0; y < y1; y++) rows.fill(index, y * stride + 1 + x0, y * stride + 1 + x1)
      }
    }
  }

  /** Every rectangle in paint order, with its colour: what a canvas would fill to draw the same image. */
  *[Symbol.iterator](): Generator<{ color: string; x: number; y: number; w: number; h: number }> {
    for (const paint of DRAW_ORDER) {
      const rects = this.batches[paint]!
      for (let i = 0; i < rects.length; i += 4) {
        yield {
          color: PAINT_COLORS[paint]!,
          x: rects[i]!,
          y: rects[i + 1]!,
          w: rects[i + 2]!,
          h: rects[i + 3]!,
        }
      }
    }
  }
}

/** A horizontal strip that grows while the next rectangle of the same paint starts where it ends. */
class Run {
  private paint = -1
  private x0 = 0
  private x1 = 0
  private y = 0
  private h = 0

  constructor(private readonly out: RectBatches) {}

  startRow(y: number, h: number): void {
    this.flush()
    this.y = y
    this.h = h
  }

  add(paint: number, x0: number, x1: number): void {
    if (paint === this.paint && x0 === this.x1) {
      this.x1 = x1
      return
    }
    this.flush()
    this.paint = paint
    this.x0 = x0
    this.x1 = x1
  }

  flush(): void {
    if (this.paint >= 0 && this.x1 > this.x0)
      this.out.add(this.paint, this.x0, this.y, this.x1 - this.x0, this.h)
    this.paint = -1
  }
}

const inGrid = (x: number, y: number) => x >= GRID_MIN && x <= GRID_MAX && y >= GRID_MIN && y <= GRID_MAX
const isEven = (n: number) => (n & 1) === 0

/**
 * Draws the viewport's parcels. Each cell is `size` pixels; its tile leaves a gap of background on its right
 * and top edges, filled towards a neighbour of the same joined group (same non-zero group, same kind, same
 * paint; adjacent selected tiles also join), and at the top-right corner when all four cells there join.
 * Outside the grid the cells form a seamless checkerboard.
 */
export function planMap(snapshot: MapSnapshot, viewport: Viewport, options: DrawOptions): RectBatches {
  const { height, size, cols, rows, minX, maxY, originY } = viewport
  const { kind, group, onSale } = snapshot
  const gap = tileGap(size)
  const originX = viewport.originX + (options.atlasPlacement ? gap : 0)
  const frame = frameWidth(size)

  const selected = new Set<number>()
  for (const { x, y } of options.selected) if (inGrid(x, y)) selected.add(cellIndex(x, y))

  // Paint and grid index of every cell of the viewport plus one column to the east and one row to the
  // north, the neighbours that decide joins. Window row 0 is the extra row (y = maxY + 1).
  const wCols = cols + 1
  const wRows = rows + 1
  const paint = new Uint8Array(wCols * wRows)
  const cell = new Int32Array(wCols * wRows)
  for (let r = 0; r < wRows; r++) {
    const y = maxY + 1 - r
    for (let c = 0; c < wCols; c++) {
      const x = minX + c
      const w = r * wCols + c
      if (!inGrid(x, y)) {
        cell[w] = -1
        paint[w] = isEven(x + y) ? PAINT_CHECKER_EVEN : PAINT_CHECKER_ODD
        continue
      }
      const i = cellIndex(x, y)
      cell[w] = i
      if (selected.size > 0 && selected.has(i)) paint[w] = PAINT_SELECTED
      else if (options.publications && onSale[i] === 1) paint[w] = PAINT_ON_SALE
      else paint[w] = kind[i]! <= TILE_PLAZA ? kind[i]! : TILE_UNOWNED
    }
  }

  const joined = (a: number, b: number): boolean => {
    const p = paint[a]!
    if (p !== paint[b] || p >= PAINT_CHECKER_EVEN) return false
    if (p === PAINT_SELECTED) return true
    const ga = cell[a]!
    const gb = cell[b]!
    return group[ga] !== 0 && group[ga] === group[gb] && kind[ga] === kind[gb]
  }

  const batches = new RectBatches()
  const body = new Run(batches)
  const top = new Run(batches)
  const tileHeight = size - gap

  for (let r = 1; r < wRows; r++) {
    const py = originY + (r - 1) * size
    if (py >= height) break
    body.startRow(py + gap, tileHeight)
    top.startRow(py, gap)
    for (let c = 0; c < cols; c++) {
      const px = originX + c * size
      const w = r * wCols + c
      const p = paint[w]!
      if (p >= PAINT_CHECKER_EVEN) {
        batches.add(p, px, py, size, size)
        continue
      }
      if (p === PAINT_SELECTED) {
        batches.add(PAINT_FRAME, px - frame, py + gap - frame, tileHeight + 2 * frame, tileHeight + 2 * frame)
      }
      const east = w + 1
      const north = w - wCols
      const joinEast = joined(w, east)
      const joinNorth = joined(w, north)
      body.add(p, px, px + (joinEast ? size : tileHeight))
      if (joinNorth) {
        const corner = joinEast && joined(w, north + 1)
        top.add(p, px, px + (corner ? size : tileHeight))
      }
    }
  }
  body.flush()
  top.flush()

  return batches
}

/**
 * The viewport's pixels as palette indices (0, the background, where no tile is drawn), drawn into
 * `scratch` (at least (width + 1) × height bytes) when given.
 */
export function drawMap(
  snapshot: MapSnapshot,
  viewport: Viewport,
  options: DrawOptions,
  scratch?: Buffer,
): IndexedImage {
  const image = blankImage(viewport.width, viewport.height, scratch)
  planMap(snapshot, viewport, options).flush(image, DRAW_ORDER)
  return image
}

/**
 * Draws the map for one image request and encodes it as PNG (encoding runs off the event loop). The
 * image is drawn in a buffer of `scratch` when given, handed back once encoded: the renders in flight
 * share a few buffers rather than leave megabytes for the garbage collector after each one.
 */
export async function renderMapPng(
  snapshot: MapSnapshot,
  request: MapImageRequest,
  scratch?: ScratchBuffers,
): Promise<Buffer> {
  const viewport = computeViewport(request)
  assertParcelLimit(viewport)
  // The routes fit every image to the budget first; this guards the memory a render may take.
  if (viewport.width * viewport.height > MAX_PIXELS) {
    throw new Error(`a ${viewport.width}×${viewport.height} image is over the pixel budget of ${MAX_PIXELS}`)
  }
  const buffer = scratch?.take(imageBytes(viewport.width, viewport.height))
  try {
    return await encodeIndexedPng(drawMap(snapshot, viewport, request, buffer), PALETTE)
  } finally {
    if (buffer) scratch?.give(buffer)
  }
}
