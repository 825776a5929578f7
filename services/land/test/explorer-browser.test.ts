/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The callbacks given to page.$eval and waitForFunction run in the page, on its DOM.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type Browser, checkChromium, hasChromium, openBrowser } from '@genesis/common/testing/browser'
import { createCanvas, loadImage } from '@napi-rs/canvas'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../src/paths.js'
import { COLORS, tileGap } from '../src/render/draw.js'
import { type Land, startLand } from './helpers.js'

/**
 * The explorer in a real browser (Debian's Chromium driven by playwright-core) against the real service
 * (buildApp listening on a port, PostgreSQL with the Genesis City set): what the page shows is checked
 * against the JSON API and against the pixels on screen.
 */

const ARTIFACTS = join(packageRoot, 'test', '.artifacts')
const VIEWPORT = { width: 1280, height: 800 }

checkChromium('explorer browser test')

interface Parcel {
  x: number
  y: number
  owner: string | null
  district_id: string | null
  estate_id: string | null
  auction_price: number | null
  data: { name: string }
  publication: { price: number | string; expires_at: number } | null
}
interface Estate {
  id: string
  data: { name: string; parcels: Array<{ x: number; y: number }> }
  size: number
}
interface District {
  id: string
  name: string
}
interface View {
  cx: number
  cy: number
  size: number
}

/** The same formatting as the page: the test compares what a person reads. */
const parcels = (n: number) => `${n.toLocaleString('en-US')} parcel${n === 1 ? '' : 's'}`
const mana = (price: number | string) =>
  `${Number(price).toLocaleString('en-US', { maximumFractionDigits: 2 })} MANA`

describe.skipIf(!hasChromium)('the land explorer in Chromium', () => {
  let land: Land
  let base = ''
  let browser: Browser
  let page: Page
  let districts: Map<string, District>
  let problems: string[] = []

  async function api<T>(path: string): Promise<T> {
    const response = await fetch(`${base}${path}`)
    const body = (await response.json()) as { ok: boolean; data: T }
    expect(response.status, path).toBe(200)
    return body.data
  }

  /** Waits until every tile of the current view is loaded and drawn. */
  async function tilesLoaded() {
    await page.waitForSelector('#map[aria-busy="false"]')
    const tiles = await page.$$eval('#layers img', (images) =>
      (images as HTMLImageElement[]).map((img) => ({
        src: img.getAttribute('src') ?? '',
        ok: img.complete && img.naturalWidth > 0,
      })),
    )
    expect(tiles.length).toBeGreaterThan(0)
    expect(tiles.filter((tile) => !tile.ok)).toEqual([])
    return tiles.map((tile) => new URL(tile.src, base))
  }

  /** The view the page wrote into its URL hash (#c=x,y&z=size…). */
  async function currentView(): Promise<View> {
    const hash = new URLSearchParams(new URL(page.url()).hash.slice(1))
    const [cx, cy] = (hash.get('c') ?? '').split(',').map(Number)
    return { cx: cx!, cy: cy!, size: Number(hash.get('z')) }
  }

  async function waitForHash(expected: RegExp) {
    await page.waitForFunction((source) => new RegExp(source).test(location.hash), expected.source)
  }

  /**
   * Where the middle of a parcel's tile is, in page pixels: the view's centre parcel sits in the middle
   * of the map, each parcel `size` pixels further on (north up), its tile below a gap of background.
   */
  async function parcelPoint(x: number, y: number, view?: View) {
    const { cx, cy, size } = view ?? (await currentView())
    const box = (await page.locator('#map').boundingBox())!
    const { width, height } = await page.$eval('#map', (map) => ({
      width: map.clientWidth,
      height: map.clientHeight,
    }))
    const gap = tileGap(size)
    const inner = Math.floor((size - gap) / 2)
    const left = Math.round(width / 2 - cx * size - size / 2) + x * size
    const top = Math.round(height / 2 + cy * size - size / 2) - y * size
    return {
      x: box.x + left + inner,
      y: box.y + top + gap + inner,
      inMap: { x: left + inner, y: top + gap + inner },
    }
  }

  /** Reads the details panel: each field's main text and its smaller lines. */
  async function shownDetails() {
    return page.$eval('#parcel', (section) => {
      const fields: Record<string, { main: string; subs: string[] }> = {}
      for (const dd of section.querySelectorAll<HTMLElement>('dd[data-field]')) {
        fields[dd.dataset.field!] = {
          main: dd.firstChild?.textContent ?? '',
          subs: [...dd.querySelectorAll('.sub')].map((sub) => sub.textContent ?? ''),
        }
      }
      return { title: section.querySelector('h2')?.textContent ?? '', fields }
    })
  }

  /** The panel shows this parcel as GET /parcels/x/y describes it. */
  async function expectDetailsOf(x: number, y: number) {
    await page.waitForSelector(`#parcel[data-parcel="${x},${y}"]:not([hidden])`)
    await page.waitForSelector('#details[aria-busy="false"]')
    const parcel = await api<Parcel>(`/parcels/${x}/${y}`)
    const { title, fields } = await shownDetails()
    expect(title).toBe(parcel.data.name || `Parcel ${x},${y}`)
    expect(fields.coordinates!.main).toBe(`${x},${y}`)
    expect(fields.owner!.main).toBe(parcel.owner ?? 'Nobody (unowned)')
    if (parcel.owner) {
      const owned = await api<{ total: number }>(`/addresses/${parcel.owner}/parcels?limit=1`)
      expect(fields.owner!.subs).toEqual([`owns ${parcels(owned.total)}`])
    }
    expect(fields.district!.main).toBe(parcel.district_id ? districts.get(parcel.district_id)!.name : '—')
    if (parcel.estate_id) {
      expect(fields.estate!.main).toMatch(new RegExp(`\\(#${parcel.estate_id}\\)$`))
    } else {
      expect(fields.estate!.main).toBe('—')
    }
    if (parcel.publication) expect(fields.publication!.main).toBe(mana(parcel.publication.price))
    expect(fields.auction!.main).toBe(parcel.auction_price === null ? '—' : mana(parcel.auction_price))
    return parcel
  }

  /** The map as a person sees it, decoded: a pixel reader and colour counts. */
  async function mapPixels() {
    const png = await page.locator('#map').screenshot()
    const image = await loadImage(png)
    const canvas = createCanvas(image.width, image.height)
    const ctx = canvas.getContext('2d')
    ctx.drawImage(image, 0, 0)
    const { data } = ctx.getImageData(0, 0, image.width, image.height)
    const at = (x: number, y: number) => {
      const o = (Math.round(y) * image.width + Math.round(x)) * 4
      return [data[o]!, data[o + 1]!, data[o + 2]!] as const
    }
    const count = (hex: string) => {
      const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16))
      let n = 0
      for (let o = 0; o < data.length; o += 4) {
        if (
          Math.abs(data[o]! - want[0]!) +
            Math.abs(data[o + 1]! - want[1]!) +
            Math.abs(data[o + 2]! - want[2]!) <
          12
        )
          n++
      }
      return n
    }
    return { at, count }
  }

  const near = (rgb: readonly number[], hex: string) =>
    [1, 3, 5].every((i, k) => Math.abs(rgb[k]! - Number.parseInt(hex.slice(i, i + 2), 16)) <= 4)

  // Parcels around the start view (centre 0,0 at 10 px: about ±45 by ±35 parcels are on screen).
  let inView: Parcel[]
  let estates: Estate[]

  beforeAll(async () => {
    land = await startLand()
    await land.app.listen({ port: 0, host: '127.0.0.1' })
    const address = land.app.server.address()
    if (address === null || typeof address === 'string') throw new Error('land is not listening on a port')
    base = `http://127.0.0.1:${address.port}`
    districts = new Map((await api<District[]>('/districts')).map((d) => [d.id, d]))
    const map = await api<{ assets: { parcels: Parcel[]; estates: Estate[] } }>('/map?nw=-30,22&se=30,-22')
    inView = map.assets.parcels
    estates = map.assets.estates

    browser = await openBrowser({ viewport: VIEWPORT, timeoutMs: 15_000 })
    ;({ page, problems } = browser)
  })

  afterAll(async () => {
    await browser?.close()
    await land?.close()
  })

  it('opens at / and draws the map from the PNG routes', async () => {
    await page.goto(`${base}/#c=0,0&z=10`)
    const tiles = await tilesLoaded()
    for (const url of tiles) {
      expect(url.pathname).toBe('/v1/map.png')
      expect(url.searchParams.get('size')).toBe('10')
      expect(url.searchParams.has('publications')).toBe(false)
    }
    // Genesis Plaza is at the centre: its colour is in the middle of the map.
    const { at } = await mapPixels()
    const centre = await parcelPoint(0, 0)
    expect(near(at(centre.inMap.x, centre.inMap.y), COLORS.plaza)).toBe(true)
  })

  it('highlights the parcels on sale when asked, in the on-sale colour where the API says they are', async () => {
    const onSale = inView.filter((p) => p.publication !== null)
    expect(onSale.length).toBeGreaterThan(0)
    const before = await mapPixels()
    expect(before.count(COLORS.onSale)).toBe(0)

    await page.check('#on-sale')
    await waitForHash(/sale=1/)
    const tiles = await tilesLoaded()
    expect(tiles.every((url) => url.searchParams.get('publications') === 'true')).toBe(true)
    const after = await mapPixels()
    expect(after.count(COLORS.onSale)).toBeGreaterThan(onSale.length * 20)
    for (const parcel of onSale.slice(0, 10)) {
      const point = await parcelPoint(parcel.x, parcel.y)
      expect(near(after.at(point.inMap.x, point.inMap.y), COLORS.onSale), `${parcel.x},${parcel.y}`).toBe(
        true,
      )
    }

    await page.uncheck('#on-sale')
    await tilesLoaded()
    expect((await mapPixels()).count(COLORS.onSale)).toBe(0)
  })

  it('shows the details of a clicked parcel as GET /parcels/x/y gives them', async () => {
    const inEstate = inView.find((p) => p.estate_id !== null)!
    const inDistrict = inView.find((p) => p.district_id !== null && p.estate_id === null)!
    const listed = inView.find((p) => p.publication !== null && p.estate_id === null)!
    for (const target of [inEstate, inDistrict, listed]) {
      const point = await parcelPoint(target.x, target.y)
      await page.mouse.click(point.x, point.y)
      await expectDetailsOf(target.x, target.y)
      await waitForHash(new RegExp(`p=${target.x},${target.y}(&|$)`))
    }
    const { fields } = await shownDetails()
    expect(fields.publication!.subs[0]).toMatch(/^until \d{4}-\d{2}-\d{2}$/)
  })

  it('draws a clicked estate parcel’s whole estate as selected', async () => {
    // An estate wholly in view, so every one of its parcels is on a tile on screen.
    const inside = (p: { x: number; y: number }) => Math.abs(p.x) <= 30 && Math.abs(p.y) <= 22
    const estate = estates.find((e) => e.size > 1 && e.data.parcels.every(inside))!
    const target = estate.data.parcels[0]!
    const point = await parcelPoint(target.x, target.y)
    await page.mouse.click(point.x, point.y)
    await expectDetailsOf(target.x, target.y)
    const { fields } = await shownDetails()
    expect(fields.estate!.main).toBe(`${estate.data.name || 'Estate'} (#${estate.id})`)
    expect(fields.estate!.subs).toEqual([parcels(estate.size)])

    await page.waitForFunction(
      (count) =>
        new Set(
          [...document.querySelectorAll('#layers img')].flatMap(
            (img) => new URL((img as HTMLImageElement).src).searchParams.get('selected')?.split(';') ?? [],
          ),
        ).size >= count,
      estate.data.parcels.length,
    )
    const tiles = await tilesLoaded()
    const selected = new Set(tiles.flatMap((url) => url.searchParams.get('selected')?.split(';') ?? []))
    expect([...selected].sort()).toEqual(estate.data.parcels.map((p) => `${p.x},${p.y}`).sort())
    const { at } = await mapPixels()
    for (const parcel of estate.data.parcels) {
      const where = await parcelPoint(parcel.x, parcel.y)
      expect(near(at(where.inMap.x, where.inMap.y), COLORS.selected), `${parcel.x},${parcel.y}`).toBe(true)
    }
  })

  it('pans with a drag: the view moves by the distance dragged, and a drag selects nothing', async () => {
    const selectedBefore = await page.getAttribute('#parcel', 'data-parcel')
    const box = (await page.locator('#map').boundingBox())!
    const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
    await page.mouse.move(start.x, start.y)
    await page.mouse.down()
    await page.mouse.move(start.x - 200, start.y + 120, { steps: 12 })
    await page.mouse.up()
    // 200 px west and 120 px south at 10 px a parcel: the view's centre is now 20 east, 12 north.
    await waitForHash(/c=20,12&/)
    expect(await page.getAttribute('#parcel', 'data-parcel')).toBe(selectedBefore)
    const tiles = await tilesLoaded()
    expect(tiles.some((url) => url.searchParams.get('center') === '51,0')).toBe(true)

    // What is in the middle of the map now is parcel 20,12.
    const point = await parcelPoint(20, 12)
    expect(Math.abs(point.x - start.x)).toBeLessThan(10)
    await page.mouse.click(point.x, point.y)
    await expectDetailsOf(20, 12)
  })

  it('zooms with the buttons and the wheel, around the view’s centre', async () => {
    await page.click('#zoom-in')
    await waitForHash(/z=13(&|$)/)
    let tiles = await tilesLoaded()
    expect(tiles.every((url) => url.searchParams.get('size') === '13')).toBe(true)

    const box = (await page.locator('#map').boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.wheel(0, 200)
    await waitForHash(/z=10(&|$)/)
    tiles = await tilesLoaded()
    expect(tiles.every((url) => url.searchParams.get('size') === '10')).toBe(true)
    expect(await currentView()).toMatchObject({ cx: 20, cy: 12 })
  })

  it('finds a parcel typed as x,y: centres on it and shows it; refuses what is not a parcel', async () => {
    await page.fill('#search-input', '-45,102')
    await page.press('#search-input', 'Enter')
    await expectDetailsOf(-45, 102)
    await waitForHash(/c=-45,102&/)
    const tiles = await tilesLoaded()
    expect(tiles.some((url) => url.searchParams.get('selected')?.split(';').includes('-45,102'))).toBe(true)
    const { at } = await mapPixels()
    const centre = await parcelPoint(-45, 102)
    expect(near(at(centre.inMap.x, centre.inMap.y), COLORS.selected)).toBe(true)

    for (const bad of ['200,0', 'forty,two', '1.5,2']) {
      await page.fill('#search-input', bad)
      await page.press('#search-input', 'Enter')
      await expect
        .poll(() => page.textContent('#search-error'))
        .toBe('Type x,y: two integers from -150 to 150')
      expect(await page.getAttribute('#search-input', 'aria-invalid')).toBe('true')
    }
    expect(await page.getAttribute('#parcel', 'data-parcel')).toBe('-45,102')
  })

  it('says how many parcels an owner has in words: "owns 1 parcel"', async () => {
    // An owner with a single parcel, among the parcels of the start view.
    const once = new Map<string, Parcel>()
    for (const parcel of inView)
      if (parcel.owner && parcel.estate_id === null)
        once.set(parcel.owner, once.has(parcel.owner) ? null! : parcel)
    let single: Parcel | undefined
    for (const [owner, parcel] of once) {
      if (!parcel) continue
      if ((await api<{ total: number }>(`/addresses/${owner}/parcels?limit=1`)).total === 1) {
        single = parcel
        break
      }
    }
    expect(single, 'an owner of one parcel in the start view').toBeDefined()
    await page.fill('#search-input', `${single!.x},${single!.y}`)
    await page.press('#search-input', 'Enter')
    await expectDetailsOf(single!.x, single!.y)
    expect((await shownDetails()).fields.owner!.subs).toEqual(['owns 1 parcel'])
  })

  it('zooms out until the whole city is on screen', async () => {
    await page.goto(`${base}/#c=0,0&z=10`)
    await tilesLoaded()
    for (let i = 0; i < 20; i++) await page.click('#zoom-out')
    await waitForHash(/z=1(&|$)/)
    const tiles = await tilesLoaded()
    const { size } = await currentView()
    const { width, height } = await page.$eval('#map', (map) => ({
      width: map.clientWidth,
      height: map.clientHeight,
    }))
    // 301 parcels a side, centred, fit in the map element ...
    expect(301 * size).toBeLessThanOrEqual(Math.min(width, height))
    // ... and the tiles drawn cover every one of them.
    const covered = { x: new Set<number>(), y: new Set<number>() }
    for (const url of tiles) {
      const [cx, cy] = url.searchParams.get('center')!.split(',').map(Number)
      const n = Number(url.searchParams.get('width')) / Number(url.searchParams.get('size'))
      for (let d = -(n - 1) / 2; d <= (n - 1) / 2; d++) {
        covered.x.add(cx! + d)
        covered.y.add(cy! + d)
      }
    }
    for (let c = -150; c <= 150; c++) {
      expect(covered.x.has(c), `x ${c}`).toBe(true)
      expect(covered.y.has(c), `y ${c}`).toBe(true)
    }
    // Genesis Plaza is still where it is drawn: in the middle.
    const { at } = await mapPixels()
    expect(near(at(width / 2, height / 2), COLORS.plaza)).toBe(true)
  })

  it('restores a shared view from the URL, at /explorer too', async () => {
    await page.goto(`${base}/explorer#c=20,-30&z=16&sale=1&p=20,-30`)
    await expectDetailsOf(20, -30)
    const tiles = await tilesLoaded()
    expect(tiles.every((url) => url.searchParams.get('size') === '16')).toBe(true)
    expect(tiles.every((url) => url.searchParams.get('publications') === 'true')).toBe(true)
    expect(await page.isChecked('#on-sale')).toBe(true)
  })

  it('looks like a map: a saved screenshot with many colours, none filling the page', async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    const path = join(ARTIFACTS, 'explorer.png')
    const png = await page.screenshot({ path })
    await writeFile(path, png)
    const image = await loadImage(path)
    expect([image.width, image.height]).toEqual([VIEWPORT.width, VIEWPORT.height])
    const canvas = createCanvas(image.width, image.height)
    const ctx = canvas.getContext('2d')
    ctx.drawImage(image, 0, 0)
    const { data } = ctx.getImageData(0, 0, image.width, image.height)
    const counts = new Map<number, number>()
    for (let o = 0; o < data.length; o += 4) {
      const rgb = (data[o]! << 16) | (data[o + 1]! << 8) | data[o + 2]!
      counts.set(rgb, (counts.get(rgb) ?? 0) + 1)
    }
    const pixels = image.width * image.height
    expect(counts.size).toBeGreaterThan(50)
    expect(Math.max(...counts.values()) / pixels).toBeLessThan(0.5)
    for (const colour of [COLORS.owned, COLORS.road, COLORS.onSale, COLORS.selected]) {
      const rgb = Number.parseInt(colour.slice(1), 16)
      expect(counts.get(rgb) ?? 0, colour).toBeGreaterThan(100)
    }
  })

  it('ran without a script error or a refused resource', () => {
    expect(problems).toEqual([])
  })
})
