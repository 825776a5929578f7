import { inflateSync } from 'node:zlib'
import { createCanvas, loadImage } from '@napi-rs/canvas'
import { describe, expect, it } from 'vitest'
import { syntheticGrid } from '../bench/png.js'
import { COLORS, type MapImageRequest, planMap, renderMapPng } from '../src/render/draw.js'
import { imageBytes } from '../src/render/indexed-png.js'
import { ScratchBuffers } from '../src/render/scratch.js'
import { computeViewport } from '../src/render/viewport.js'

/**
 * The PNG encoder writes palette indices straight into a buffer. These tests replay the very same
 * rectangles on a Skia canvas (how every map was drawn before) and require the decoded pixels to be
 * identical, over sizes, image shapes, grid edges, selections and on-sale highlighting.
 */
const grid = syntheticGrid()

async function rgbaOf(png: Buffer): Promise<Uint8ClampedArray> {
  const image = await loadImage(png)
  const canvas = createCanvas(image.width, image.height)
  const ctx = canvas.getContext('2d')
  ctx.drawImage(image, 0, 0)
  return ctx.getImageData(0, 0, image.width, image.height).data
}

function skiaRgba(request: MapImageRequest): Uint8ClampedArray {
  const viewport = computeViewport(request)
  const canvas = createCanvas(request.width, request.height)
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = COLORS.background
  ctx.fillRect(0, 0, request.width, request.height)
  for (const rect of planMap(grid.snapshot(), viewport, request)) {
    ctx.fillStyle = rect.color
    ctx.fillRect(rect.x, rect.y, rect.w, rect.h)
  }
  return ctx.getImageData(0, 0, request.width, request.height).data
}

const requests: Array<Partial<MapImageRequest> & { name: string }> = [
  { name: 'defaults at the centre' },
  { name: '2048² at size 20', width: 2048, height: 2048, size: 20 },
  { name: '1024² at size 10, on sale', width: 1024, height: 1024, size: 10, publications: true },
  {
    name: 'odd sizes at the south-west corner',
    width: 333,
    height: 97,
    size: 7,
    center: { x: -150, y: -150 },
  },
  { name: 'north-east corner, size 40', width: 640, height: 480, size: 40, center: { x: 150, y: 150 } },
  {
    name: 'selected tiles, joined and alone',
    size: 12,
    selected: [
      { x: 0, y: 0 },
      { x: 1, y: 0 },
      { x: 1, y: 1 },
      { x: 5, y: -3 },
    ],
    publications: true,
  },
  { name: 'the smallest image', width: 32, height: 32, size: 5, center: { x: 149, y: -149 } },
]

describe('palette PNG', () => {
  for (const { name, ...overrides } of requests) {
    it(`has the pixels Skia draws from the same rectangles: ${name}`, async () => {
      const request: MapImageRequest = {
        width: 500,
        height: 500,
        size: 10,
        center: { x: 0, y: 0 },
        publications: false,
        selected: [],
        ...overrides,
      }
      const png = await renderMapPng(grid.snapshot(), request)
      const actual = await rgbaOf(png)
      const expected = skiaRgba(request)
      expect(actual.length).toBe(expected.length)
      expect(Buffer.from(actual).equals(Buffer.from(expected))).toBe(true)
    })
  }

  it('is a well-formed 8-bit palette PNG with one row filter byte per row', async () => {
    const png = await renderMapPng(grid.snapshot(), {
      width: 64,
      height: 40,
      size: 8,
      center: { x: 0, y: 0 },
      publications: false,
      selected: [],
    })
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    expect(png.readUInt32BE(16)).toBe(64)
    expect(png.readUInt32BE(20)).toBe(40)
    expect([png[24], png[25]]).toEqual([8, 3])
    const idatAt = png.indexOf('IDAT', 0, 'latin1')
    const raw = inflateSync(png.subarray(idatAt + 4, idatAt + 4 + png.readUInt32BE(idatAt - 4)))
    expect(raw.length).toBe((64 + 1) * 40)
  })

  it('draws in reused scratch buffers: the same pixels, a dirty buffer cleared, concurrent renders apart', async () => {
    const scratch = new ScratchBuffers(imageBytes(640, 480), 1)
    const base = { center: { x: 0, y: 0 }, publications: true, selected: [] }
    const big = { ...base, width: 640, height: 480, size: 9 }
    const small = { ...base, width: 120, height: 90, size: 13, center: { x: 40, y: -7 } }
    const expected = await Promise.all([
      renderMapPng(grid.snapshot(), big),
      renderMapPng(grid.snapshot(), small),
    ])
    // one after another: the second is drawn in the buffer the first left full of its pixels
    expect((await renderMapPng(grid.snapshot(), big, scratch)).equals(expected[0])).toBe(true)
    const reused = scratch.take(1)
    scratch.give(reused)
    expect((await renderMapPng(grid.snapshot(), small, scratch)).equals(expected[1])).toBe(true)
    expect(scratch.take(1)).toBe(reused)
    scratch.give(reused)
    // at once: each gets a buffer of its own (one is kept, the other allocated)
    const together = await Promise.all([
      renderMapPng(grid.snapshot(), big, scratch),
      renderMapPng(grid.snapshot(), small, scratch),
    ])
    expect(together[0].equals(expected[0])).toBe(true)
    expect(together[1].equals(expected[1])).toBe(true)
    // an image larger than the pooled size still renders, in a buffer of its own
    const over = { ...base, width: 700, height: 500, size: 10 }
    expect(
      (await renderMapPng(grid.snapshot(), over, scratch)).equals(await renderMapPng(grid.snapshot(), over)),
    ).toBe(true)
  })
})
