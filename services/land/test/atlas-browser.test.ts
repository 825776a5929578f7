/// <reference lib="dom" />
// The callbacks given to page.evaluate and waitForFunction run in the page, on its DOM.

import { type Browser, checkChromium, hasChromium, openBrowser } from '@genesis/common/testing/browser'
import type { Tile } from '@genesis/wire/land'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildAtlasPage } from '../scripts/atlas/build.js'
import { ATLAS_COLORS } from '../scripts/atlas/colors.js'
import { type Land, startLand } from './helpers.js'

/**
 * The real client: the Atlas view (react-tile-map, bundled by esbuild as `pnpm build` does) in Debian's
 * Chromium, drawing land's /v2/tiles; the canvas pixels at a plaza, a road, a district, an owned, an
 * unowned and an on-sale parcel are the colours decentraland-ui's Atlas gives those types.
 */

const VIEWPORT = { width: 1000, height: 700 }
const SIZE = 10

checkChromium('Atlas browser test')

const rgbOf = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16))

describe.skipIf(!hasChromium)("the Atlas view in Chromium, from land's /v2/tiles", () => {
  let land: Land
  let base = ''
  let browser: Browser
  let page: Page
  let problems: string[] = []
  const requested: string[] = []
  // One parcel of each kind, all on the first screen around `center`.
  const samples: Record<string, { x: number; y: number }> = {}
  let center = { x: 0, y: 0 }

  beforeAll(async () => {
    await buildAtlasPage()
    land = await startLand()
    await land.app.listen({ port: 0, host: '127.0.0.1' })
    const address = land.app.server.address()
    if (address === null || typeof address === 'string') throw new Error('land is not listening on a port')
    base = `http://127.0.0.1:${address.port}`

    // A first screen with every kind of tile on it: about ±50 by ±35 parcels are visible, a margin keeps
    // the samples off the edges.
    const response = await fetch(`${base}/v2/tiles?include=x,y,type,price`)
    const tiles = Object.values(((await response.json()) as { data: Record<string, Tile> }).data)
    const kinds: Record<string, (t: Tile) => boolean> = {
      plaza: (t) => t.type === 'plaza',
      road: (t) => t.type === 'road',
      district: (t) => t.type === 'district',
      owned: (t) => t.type === 'owned' && t.price === undefined,
      unowned: (t) => t.type === 'unowned',
      onSale: (t) => t.type === 'owned' && t.price !== undefined,
    }
    const near = (c: { x: number; y: number }) => (t: Tile) =>
      Math.abs(t.x - c.x) <= 40 && Math.abs(t.y - c.y) <= 28
    const candidates: Array<{ x: number; y: number }> = []
    for (let x = -100; x <= 100; x += 10) for (let y = -100; y <= 100; y += 10) candidates.push({ x, y })
    candidates.sort((a, b) => Math.hypot(a.x, a.y) - Math.hypot(b.x, b.y))
    const found = candidates.find((c) => {
      const visible = tiles.filter(near(c))
      return Object.values(kinds).every((match) => visible.some(match))
    })
    if (!found) throw new Error('no screen of the demo set shows every kind of tile')
    center = found
    const distance = (t: Tile) => Math.hypot(t.x - center.x, t.y - center.y)
    for (const [kind, match] of Object.entries(kinds)) {
      const tile = tiles
        .filter((t) => near(center)(t) && match(t))
        .sort((a, b) => distance(a) - distance(b))[0]!
      samples[kind] = { x: tile.x, y: tile.y }
    }

    browser = await openBrowser({ viewport: VIEWPORT, timeoutMs: 60_000 })
    ;({ page, problems } = browser)
    page.on('request', (request) => requested.push(new URL(request.url()).pathname))
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await land?.close()
  })

  /** Opens the view and waits until the tiles are loaded and the canvas shows them. */
  async function open(query: string) {
    await page.goto(`${base}/atlas?x=${center.x}&y=${center.y}&size=${SIZE}${query}`)
    await page.waitForFunction(() => document.body.dataset.tiles === String(301 * 301))
    // The component draws on its own schedule: wait until the middle is no longer the loading pattern.
    await page.waitForFunction(
      ([loadingOdd, loadingEven]) => {
        const canvas = document.querySelector('canvas')
        if (!canvas) return false
        const ratio = canvas.width / canvas.clientWidth
        const [r, g, b] = canvas
          .getContext('2d')!
          .getImageData(
            Math.round((canvas.clientWidth / 2) * ratio),
            Math.round((canvas.clientHeight / 2) * ratio),
            1,
            1,
          ).data
        const hex = `#${[r, g, b].map((v) => v!.toString(16).padStart(2, '0')).join('')}`.toLowerCase()
        return (
          hex !== loadingOdd!.toLowerCase() &&
          hex !== loadingEven!.toLowerCase() &&
          (r! > 0 || g! > 0 || b! > 0)
        )
      },
      [ATLAS_COLORS.loadingOdd, ATLAS_COLORS.loadingEven],
    )
  }

  /** The canvas colours around the middle of each parcel's tile (3 × 3 pixels), read from the canvas itself. */
  async function coloursAt(parcels: Array<{ x: number; y: number }>) {
    return page.evaluate(
      ({ parcels, size, center }) => {
        const canvas = document.querySelector('canvas')!
        const ratio = canvas.width / canvas.clientWidth
        const ctx = canvas.getContext('2d')!
        // react-tile-map puts the centre parcel in the middle, `size` pixels per parcel, north up.
        return parcels.map(({ x, y }) => {
          const px = canvas.clientWidth / 2 + (x - center.x) * size
          const py = canvas.clientHeight / 2 - (y - center.y) * size
          const { data } = ctx.getImageData(Math.round((px - 1) * ratio), Math.round((py - 1) * ratio), 3, 3)
          const pixels: number[][] = []
          for (let i = 0; i < data.length; i += 4) pixels.push([data[i]!, data[i + 1]!, data[i + 2]!])
          return pixels
        })
      },
      { parcels, size: SIZE, center },
    )
  }

  const expectColour = (pixels: number[][], hex: string, label: string) => {
    const want = rgbOf(hex)
    for (const rgb of pixels) {
      expect(
        rgb.every((v, k) => Math.abs(v - want[k]!) <= 3),
        `${label}: ${JSON.stringify(rgb)} is not ${hex}`,
      ).toBe(true)
    }
  }

  it("decodes the parcel view as an explorer's shader does: one texel per parcel, flags in the channels", async () => {
    await page.goto(`${base}/atlas?x=${center.x}&y=${center.y}&size=${SIZE}`)
    const decoded = await page.evaluate(async (parcels) => {
      /** The image's texels, read without smoothing, as a texture with nearest filtering is sampled. */
      async function texels(url: string) {
        const image = new Image()
        image.src = url
        await image.decode()
        const canvas = document.createElement('canvas')
        canvas.width = image.width
        canvas.height = image.height
        const context = canvas.getContext('2d', { willReadFrequently: true })!
        context.imageSmoothingEnabled = false
        context.drawImage(image, 0, 0)
        return { size: image.width, data: context.getImageData(0, 0, image.width, image.height).data }
      }
      const minimap = await texels('/v1/minimap.png')
      const estatemap = await texels('/v1/estatemap.png')
      // parcel (x, y) is the texel at column x + 256, row 256 - y
      const at = (map: { data: Uint8ClampedArray }, x: number, y: number) =>
        Array.from(map.data.subarray(((256 - y) * 512 + x + 256) * 4, ((256 - y) * 512 + x + 256) * 4 + 4))
      return {
        size: [minimap.size, estatemap.size],
        parcels: parcels.map(({ x, y }) => ({
          x,
          y,
          minimap: at(minimap, x, y),
          estate: at(estatemap, x, y),
        })),
      }
    }, Object.values(samples))
    expect(decoded.size).toEqual([512, 512])
    const response = await fetch(`${base}/v2/tiles?include=x,y,type,top,left,topLeft,estateId`)
    const tiles = ((await response.json()) as { data: Record<string, Tile> }).data
    const green: Record<string, number> = { district: 32, road: 64, owned: 128, plaza: 0, unowned: 0 }
    for (const { x, y, minimap, estate } of decoded.parcels) {
      const tile = tiles[`${x},${y}`]!
      const flags = (tile.top ? 8 : 0) + (tile.left ? 16 : 0) + (tile.topLeft ? 32 : 0)
      expect({ x, y, texel: minimap }).toEqual({ x, y, texel: [flags, green[tile.type], 0, 255] })
      const index = estate[0]! * 65536 + estate[1]! * 256 + estate[2]!
      expect(index > 0).toBe(tile.estateId !== undefined)
    }
  })

  it('draws each tile type in the Atlas colour for it, reading /v2/tiles', async () => {
    await open('')
    expect(requested).toContain('/v2/tiles')
    const kinds = ['plaza', 'road', 'district', 'owned', 'unowned', 'onSale'] as const
    const colours = await coloursAt(kinds.map((k) => samples[k]!))
    const expected = {
      plaza: ATLAS_COLORS.plaza,
      road: ATLAS_COLORS.road,
      district: ATLAS_COLORS.district,
      owned: ATLAS_COLORS.owned,
      unowned: ATLAS_COLORS.unowned,
      // decentraland-ui's Atlas shows land on sale as owned land (legacy type 10 has the owned colour).
      onSale: ATLAS_COLORS.owned,
    }
    kinds.forEach((kind, i) => {
      expectColour(colours[i]!, expected[kind], `${kind} at ${samples[kind]!.x},${samples[kind]!.y}`)
    })
    expect(problems).toEqual([])
  }, 120_000)

  it('with the on-sale layer, the listed parcel takes the on-sale colour and the others keep theirs', async () => {
    await open('&sale=1')
    const [onSale, owned, plaza] = await coloursAt([samples.onSale!, samples.owned!, samples.plaza!])
    expectColour(onSale!, ATLAS_COLORS.onSale, 'on sale')
    expectColour(owned!, ATLAS_COLORS.owned, 'owned')
    expectColour(plaza!, ATLAS_COLORS.plaza, 'plaza')
    expect(problems).toEqual([])
  }, 120_000)

  it('is linked from the explorer as "Atlas view"', async () => {
    await page.goto(`${base}/`)
    const link = page.getByRole('link', { name: 'Atlas view' })
    expect(await link.getAttribute('href')).toBe('/atlas')
    await link.click()
    await page.waitForURL(`${base}/atlas`)
    await page.waitForFunction(() => document.body.dataset.tiles === String(301 * 301))
    expect(problems).toEqual([])
  }, 120_000)
})
