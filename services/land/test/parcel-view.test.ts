// The explorers' parcel view (/v1/minimap.png, /v1/estatemap.png): decoded by an independent PNG decoder
// (@napi-rs/canvas), every parcel's pixel checked against its /v2/tiles tile; and the rest of the atlas
// surface the explorers and map clients call (/v2/districts/:id, /v2/ping, /v2/ready).

import type { Tile } from '@genesis/wire/land'
import { createCanvas, loadImage } from '@napi-rs/canvas'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRID_MAX, GRID_MIN } from '../src/domain/geometry.js'
import { type Land, startLand } from './helpers.js'

let land: Land
beforeAll(async () => {
  land = await startLand()
})
afterAll(async () => {
  await land?.close()
})

const get = (url: string, headers: Record<string, string> = {}) =>
  land.app.inject({ method: 'GET', url, headers })

/** RGBA of every pixel, as an explorer's texture reads it. */
async function pixelsOf(url: string) {
  const answer = await get(url)
  expect(answer.statusCode, url).toBe(200)
  expect(answer.headers['content-type']).toBe('image/png')
  const image = await loadImage(answer.rawPayload)
  expect([image.width, image.height]).toEqual([512, 512])
  const canvas = createCanvas(512, 512)
  const context = canvas.getContext('2d')
  context.drawImage(image, 0, 0)
  const data = context.getImageData(0, 0, 512, 512).data
  return (column: number, row: number) =>
    Array.from(data.subarray((row * 512 + column) * 4, (row * 512 + column) * 4 + 4))
}
const pixelOf = (x: number, y: number): [number, number] => [x + 256, 256 - y]

describe('the parcel view', () => {
  let tiles: Record<string, Tile>
  beforeAll(async () => {
    tiles = (await get('/v2/tiles')).json().data
  })

  it('minimap: every parcel its type and joins, as /v2/tiles says; outside the grid transparent', async () => {
    const at = await pixelsOf('/v1/minimap.png')
    const green: Record<string, number> = { district: 32, road: 64, owned: 128, plaza: 0, unowned: 0 }
    for (let y = GRID_MIN; y <= GRID_MAX; y++) {
      for (let x = GRID_MIN; x <= GRID_MAX; x++) {
        const tile = tiles[`${x},${y}`]!
        const red = (tile.top ? 8 : 0) + (tile.left ? 16 : 0) + (tile.topLeft ? 32 : 0)
        const [r, g, b, a] = at(...pixelOf(x, y))
        if (r !== red || g !== green[tile.type] || b !== 0 || a !== 255) {
          expect({ x, y, pixel: [r, g, b, a] }).toEqual({ x, y, pixel: [red, green[tile.type], 0, 255] })
        }
      }
    }
    for (const [column, row] of [
      [0, 0],
      [511, 511],
      [105, 256],
      [407, 256],
      [256, 105],
      [256, 407],
    ] as const) {
      expect(at(column, row)).toEqual([0, 0, 0, 0])
    }
    // the city has all of these
    const types = new Set(Object.values(tiles).map((t) => t.type))
    expect([...types].sort()).toEqual(['district', 'owned', 'plaza', 'road', 'unowned'])
  })

  it('estatemap: one index per estate, the same on all its parcels, 0 outside estates', async () => {
    const at = await pixelsOf('/v1/estatemap.png')
    const indexOf = new Map<string, number>()
    const estateOf = new Map<number, string>()
    for (let y = GRID_MIN; y <= GRID_MAX; y++) {
      for (let x = GRID_MIN; x <= GRID_MAX; x++) {
        const tile = tiles[`${x},${y}`]!
        const [r, g, b, a] = at(...pixelOf(x, y))
        expect(a).toBe(255)
        const index = r! * 65536 + g! * 256 + b!
        if (tile.estateId === undefined) {
          if (index !== 0) expect({ x, y, index }).toEqual({ x, y, index: 0 })
          continue
        }
        expect(index).toBeGreaterThan(0)
        const known = indexOf.get(tile.estateId)
        if (known === undefined) {
          expect(estateOf.has(index), `index ${index} given to two estates`).toBe(false)
          indexOf.set(tile.estateId, index)
          estateOf.set(index, tile.estateId)
        } else if (known !== index) expect({ x, y, index }).toEqual({ x, y, index: known })
      }
    }
    expect(indexOf.size).toBeGreaterThan(10)
  })

  it('carries the grid validators: 304 for the version a client holds, a new ETag when land changes', async () => {
    for (const url of ['/v1/minimap.png', '/v1/estatemap.png']) {
      const first = await get(url)
      expect(first.headers['cache-control']).toMatch(/max-age=\d+/)
      expect(first.headers['last-modified']).toBeDefined()
      const again = await get(url, { 'if-none-match': String(first.headers.etag) })
      expect(again.statusCode).toBe(304)
    }
    // an unowned parcel gets an owner: the minimap's pixel follows, under a new ETag
    const unowned = Object.values(tiles).find((t) => t.type === 'unowned')!
    const before = await get('/v1/minimap.png')
    await land.db
      .sql`update parcels set owner = ${`0x${'7'.repeat(40)}`} where x = ${unowned.x} and y = ${unowned.y}`
    await land.grid.refresh()
    const after = await get('/v1/minimap.png', { 'if-none-match': String(before.headers.etag) })
    expect(after.statusCode).toBe(200)
    expect(after.headers.etag).not.toBe(before.headers.etag)
    const at = await pixelsOf('/v1/minimap.png')
    expect(at(...pixelOf(unowned.x, unowned.y))[1]).toBe(128)
  })
})

describe('the rest of the atlas surface', () => {
  it('/v2/districts/:id is one district as /v2/districts lists it; 404 in the envelope when unknown', async () => {
    const all = (await get('/v2/districts')).json().data as Array<{ id: string }>
    const one = await get(`/v2/districts/${all[3]!.id.toUpperCase()}`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual({ ok: true, data: all[3] })
    const missing = await get('/v2/districts/00000000-0000-0000-0000-000000000000')
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('/v2/ping and /v2/ready answer as /health/live and /health/ready', async () => {
    expect((await get('/v2/ping')).json()).toEqual({ ok: true, data: { status: 'live' } })
    expect((await get('/v2/ping')).body).toBe((await get('/health/live')).body)
    const ready = await get('/v2/ready')
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toEqual((await get('/health/ready')).json())
  })
})

describe("the /v2 images: atlas-server's placement", () => {
  /** Every pixel of a PNG answer, RGBA. */
  async function rgba(url: string) {
    const answer = await get(url)
    expect(answer.statusCode, url).toBe(200)
    const image = await loadImage(answer.rawPayload)
    const canvas = createCanvas(image.width, image.height)
    const context = canvas.getContext('2d')
    context.drawImage(image, 0, 0)
    return {
      width: image.width,
      height: image.height,
      data: context.getImageData(0, 0, image.width, image.height).data,
    }
  }

  it("draws each tile where atlas-server does: the spec's image moved right by the tile gap (2 px at size 20)", async () => {
    const query = 'width=400&height=300&size=20&center=-30,90'
    const spec = await rgba(`/map.png?${query}`)
    const v2 = await rgba(`/v2/map.png?${query}`)
    const gap = 2
    let differing = 0
    let compared = 0
    for (let y = 0; y < spec.height; y++) {
      for (let x = 0; x + gap < spec.width; x++) {
        const a = (y * spec.width + x) * 4
        const b = (y * v2.width + x + gap) * 4
        compared++
        if (
          spec.data[a] !== v2.data[b] ||
          spec.data[a + 1] !== v2.data[b + 1] ||
          spec.data[a + 2] !== v2.data[b + 2]
        )
          differing++
      }
    }
    expect(compared).toBeGreaterThan(100_000)
    expect(differing).toBe(0)
    // and not already so unshifted: the placement is what differs
    let unshifted = 0
    for (let i = 0; i < spec.data.length; i += 4) if (spec.data[i] !== v2.data[i]) unshifted++
    expect(unshifted).toBeGreaterThan(1000)
  })
})
