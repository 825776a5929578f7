import { createCanvas, loadImage } from '@napi-rs/canvas'
import { beforeAll, describe, expect, it } from 'vitest'
import { cellIndex, GRID_SIZE } from '../src/domain/geometry.js'
import { TILE_DISTRICT, TILE_OWNED, TILE_PLAZA, TILE_ROAD, TILE_UNOWNED } from '../src/domain/tiles.js'
import { COLORS, frameWidth, type MapImageRequest, renderMapPng, tileGap } from '../src/render/draw.js'
import type { MapSnapshot } from '../src/render/types.js'
import { computeViewport } from '../src/render/viewport.js'

/** A grid of unowned parcels with a few placed cells: test data, drawn by the real renderer. */
function snapshotWith(
  cells: Array<{ x: number; y: number; kind: number; group?: number; onSale?: boolean }>,
): MapSnapshot {
  const kind = new Uint8Array(GRID_SIZE * GRID_SIZE).fill(TILE_UNOWNED)
  const group = new Int32Array(GRID_SIZE * GRID_SIZE)
  const onSale = new Uint8Array(GRID_SIZE * GRID_SIZE)
  for (const cell of cells) {
    const i = cellIndex(cell.x, cell.y)
    kind[i] = cell.kind
    group[i] = cell.group ?? 0
    onSale[i] = cell.onSale ? 1 : 0
  }
  return { version: 'test', kind, group, onSale }
}

const block = (x0: number, y0: number, w: number, h: number, kind: number, group: number, onSale = false) =>
  Array.from({ length: w * h }, (_, i) => ({
    x: x0 + (i % w),
    y: y0 + Math.floor(i / w),
    kind,
    group,
    onSale,
  }))

interface Decoded {
  /** Colour of the pixel at (px, py), as lower-case #rrggbb. */
  at(px: number, py: number): string
  /** Pixel position of a parcel's cell (its top-left corner). */
  cell(x: number, y: number): { left: number; top: number }
  width: number
  height: number
}

const hex = (c: string) => c.toLowerCase()

async function render(snapshot: MapSnapshot, request: MapImageRequest): Promise<Decoded> {
  const png = await renderMapPng(snapshot, request)
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
  const image = await loadImage(png)
  const canvas = createCanvas(image.width, image.height)
  const ctx = canvas.getContext('2d')
  ctx.drawImage(image, 0, 0)
  const { data } = ctx.getImageData(0, 0, image.width, image.height)
  const viewport = computeViewport(request)
  return {
    width: image.width,
    height: image.height,
    at(px, py) {
      const o = (py * image.width + px) * 4
      expect(data[o + 3]).toBe(255)
      return `#${[data[o]!, data[o + 1]!, data[o + 2]!].map((v) => v.toString(16).padStart(2, '0')).join('')}`
    },
    cell(x, y) {
      return {
        left: viewport.originX + (x - viewport.minX) * viewport.size,
        top: viewport.originY + (viewport.maxY - y) * viewport.size,
      }
    },
  }
}

// size 10: gap 1 px on the right and top of each cell, selection frame 1 px
const SIZE = 10
const base: MapImageRequest = {
  width: 120,
  height: 100,
  size: SIZE,
  center: { x: 0, y: 0 },
  publications: false,
  selected: [],
}

const snapshot = snapshotWith([
  { x: 1, y: 0, kind: TILE_OWNED },
  ...block(2, 2, 2, 2, TILE_OWNED, 77), // a 2×2 estate: joined everywhere
  ...[
    { x: -3, y: 2 },
    { x: -2, y: 2 },
    { x: -3, y: 3 },
  ].map((c) => ({ ...c, kind: TILE_OWNED, group: 78 })), // an L-shaped estate: no corner fill
  { x: -4, y: -2, kind: TILE_DISTRICT, group: 5 },
  { x: -3, y: -2, kind: TILE_DISTRICT, group: 6 }, // another district: not joined to the first
  ...block(0, -3, 2, 1, TILE_ROAD, 1),
  { x: 2, y: -3, kind: TILE_PLAZA, group: 1 }, // same group value, other kind: not joined to the road
  { x: 4, y: -1, kind: TILE_OWNED, onSale: true },
  { x: -1, y: -1, kind: TILE_ROAD, group: 1, onSale: true },
  ...block(-5, 1, 2, 1, TILE_OWNED, 90, true), // an estate on sale
])

describe('drawing the map', () => {
  let plain: Decoded
  let withSales: Decoded

  beforeAll(async () => {
    plain = await render(snapshot, base)
    withSales = await render(snapshot, { ...base, publications: true })
  })

  it('encodes a PNG of the requested size', () => {
    expect(plain.width).toBe(120)
    expect(plain.height).toBe(100)
    expect(tileGap(SIZE)).toBe(1)
    expect(frameWidth(SIZE)).toBe(1)
  })

  it('paints every kind of tile in its colour, with background in the gaps', () => {
    const unowned = plain.cell(0, 0)
    expect(plain.at(unowned.left + 4, unowned.top + 5)).toBe(hex(COLORS.unowned))
    expect(plain.at(unowned.left + SIZE - 1, unowned.top + 5)).toBe(hex(COLORS.background)) // right gap
    expect(plain.at(unowned.left + 4, unowned.top)).toBe(hex(COLORS.background)) // top gap
    const owned = plain.cell(1, 0)
    expect(plain.at(owned.left + 4, owned.top + 5)).toBe(hex(COLORS.owned))
    expect(plain.at(owned.left + SIZE - 1, owned.top + 5)).toBe(hex(COLORS.background))
    const district = plain.cell(-4, -2)
    expect(plain.at(district.left + 4, district.top + 5)).toBe(hex(COLORS.district))
    const road = plain.cell(0, -3)
    expect(plain.at(road.left + 4, road.top + 5)).toBe(hex(COLORS.road))
    const plaza = plain.cell(2, -3)
    expect(plain.at(plaza.left + 4, plaza.top + 5)).toBe(hex(COLORS.plaza))
    // the image's corners are covered by cells (no uncovered background band at the edges)
    const corner = plain.cell(-6, 5)
    expect(corner.left).toBeLessThanOrEqual(0)
    expect(corner.top).toBeLessThanOrEqual(0)
  })

  it('joins the tiles of one group: gaps, and the corner when all four cells share it', () => {
    const sw = plain.cell(2, 2)
    expect(plain.at(sw.left + SIZE - 1, sw.top + 5)).toBe(hex(COLORS.owned)) // towards (3,2)
    expect(plain.at(sw.left + 4, sw.top)).toBe(hex(COLORS.owned)) // towards (2,3)
    expect(plain.at(sw.left + SIZE - 1, sw.top)).toBe(hex(COLORS.owned)) // the corner
    const ne = plain.cell(3, 3)
    expect(plain.at(ne.left + SIZE - 1, ne.top + 5)).toBe(hex(COLORS.background)) // edge of the estate
    expect(plain.at(ne.left + 4, ne.top)).toBe(hex(COLORS.background))

    const l = plain.cell(-3, 2)
    expect(plain.at(l.left + SIZE - 1, l.top + 5)).toBe(hex(COLORS.owned))
    expect(plain.at(l.left + 4, l.top)).toBe(hex(COLORS.owned))
    expect(plain.at(l.left + SIZE - 1, l.top)).toBe(hex(COLORS.background)) // (-2,3) is not in the estate

    const road = plain.cell(0, -3)
    expect(plain.at(road.left + SIZE - 1, road.top + 5)).toBe(hex(COLORS.road)) // road to road
    const roadEnd = plain.cell(1, -3)
    expect(plain.at(roadEnd.left + SIZE - 1, roadEnd.top + 5)).toBe(hex(COLORS.background)) // road | plaza
  })

  it('keeps a gap between different groups of the same kind and between ungrouped neighbours', () => {
    const first = plain.cell(-4, -2)
    expect(plain.at(first.left + SIZE - 1, first.top + 5)).toBe(hex(COLORS.background))
    const owned = plain.cell(1, 0) // group 0 next to (2,0) unowned, and (0,0) unowned to its left
    const left = plain.cell(0, 0)
    expect(plain.at(left.left + SIZE - 1, left.top + 5)).toBe(hex(COLORS.background))
    expect(plain.at(owned.left + SIZE - 1, owned.top + 5)).toBe(hex(COLORS.background))
  })

  it('shows parcels on sale only when publications=true, above the road colour, joined within an estate', () => {
    const single = plain.cell(4, -1)
    expect(plain.at(single.left + 4, single.top + 5)).toBe(hex(COLORS.owned))
    expect(withSales.at(single.left + 4, single.top + 5)).toBe(hex(COLORS.onSale))
    const road = plain.cell(-1, -1)
    expect(plain.at(road.left + 4, road.top + 5)).toBe(hex(COLORS.road))
    expect(withSales.at(road.left + 4, road.top + 5)).toBe(hex(COLORS.onSale))
    const estate = withSales.cell(-5, 1)
    expect(withSales.at(estate.left + 4, estate.top + 5)).toBe(hex(COLORS.onSale))
    expect(withSales.at(estate.left + SIZE - 1, estate.top + 5)).toBe(hex(COLORS.onSale)) // joined
    expect(plain.at(estate.left + SIZE - 1, estate.top + 5)).toBe(hex(COLORS.owned))
  })

  it('draws selected parcels above everything, framed, and joined to each other', async () => {
    const selected = await render(snapshot, {
      ...base,
      publications: true,
      selected: [
        { x: 4, y: -1 }, // on sale: selected wins
        { x: 0, y: -3 }, // road: selected wins, and the road gap towards (1,-3) is no longer joined
        { x: -1, y: 3 },
        { x: 0, y: 3 }, // two adjacent selected parcels
      ],
    })
    const onSale = selected.cell(4, -1)
    expect(selected.at(onSale.left + 4, onSale.top + 5)).toBe(hex(COLORS.selected))
    // the frame: one pixel around the tile (left of it and above its top edge)
    expect(selected.at(onSale.left - 1, onSale.top + 5)).toBe(hex(COLORS.selectedFrame))
    expect(selected.at(onSale.left + 4, onSale.top)).toBe(hex(COLORS.selectedFrame))
    const road = selected.cell(0, -3)
    expect(selected.at(road.left + 4, road.top + 5)).toBe(hex(COLORS.selected))
    const pair = selected.cell(-1, 3)
    expect(selected.at(pair.left + SIZE - 1, pair.top + 5)).toBe(hex(COLORS.selected)) // joined to (0,3)
    expect(selected.at(pair.left + 4, pair.top)).toBe(hex(COLORS.selectedFrame)) // (−1,4) is not selected
  })

  it('draws a seamless checkerboard outside the grid', async () => {
    const edge = await render(snapshotWith([]), { ...base, center: { x: 150, y: 150 } })
    const inside = edge.cell(150, 150)
    expect(edge.at(inside.left + 4, inside.top + 5)).toBe(hex(COLORS.unowned))
    for (const [x, y] of [
      [151, 150],
      [152, 150],
      [150, 151],
      [151, 151],
      [149, 152],
    ] as const) {
      const { left, top } = edge.cell(x, y)
      const expected = (x + y) % 2 === 0 ? COLORS.checkerEven : COLORS.checkerOdd
      // every pixel of the cell, gaps included
      for (const [dx, dy] of [
        [0, 0],
        [4, 5],
        [SIZE - 1, 5],
        [4, 0],
        [SIZE - 1, 0],
      ] as const) {
        expect(edge.at(left + dx, top + dy)).toBe(hex(expected))
      }
    }
  })

  it('scales the gap and the frame with the parcel size', async () => {
    const big = await render(snapshot, {
      ...base,
      size: 40,
      width: 300,
      height: 200,
      selected: [{ x: 3, y: 0 }],
    })
    expect(tileGap(40)).toBe(4)
    expect(frameWidth(40)).toBe(5)
    const unowned = big.cell(0, 0)
    for (let dx = 36; dx < 40; dx++)
      expect(big.at(unowned.left + dx, unowned.top + 20)).toBe(hex(COLORS.background))
    expect(big.at(unowned.left + 35, unowned.top + 20)).toBe(hex(COLORS.unowned))
    const picked = big.cell(3, 0)
    expect(big.at(picked.left + 20, picked.top + 20)).toBe(hex(COLORS.selected))
    expect(big.at(picked.left - 5, picked.top + 20)).toBe(hex(COLORS.selectedFrame))
    expect(big.at(picked.left - 6, picked.top + 20)).toBe(hex(COLORS.unowned))
  })
})
