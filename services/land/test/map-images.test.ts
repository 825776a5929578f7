import { type App, createApp } from '@genesis/common'
import { useTestDatabase } from '@genesis/common/testing/vitest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cellIndex, GRID_SIZE } from '../src/domain/geometry.js'
import { TILE_DISTRICT, TILE_OWNED, TILE_ROAD } from '../src/domain/tiles.js'
import { DEFAULT_IMAGE_CACHE_BYTES, MapImageRenderer } from '../src/render/image-renderer.js'
import type { MapSnapshot, MapSource } from '../src/render/types.js'
import { mapImageRoutes } from '../src/routes/map-images.js'

/** A grid held in memory like the service's index: data for the routes, swapped when it "changes". */
class TestGrid implements MapSource {
  current: MapSnapshot
  readonly estates = new Map<string, Array<{ x: number; y: number }>>()

  constructor() {
    this.current = TestGrid.build('v1', false)
    this.estates.set('7', [
      { x: 10, y: 20 },
      { x: 11, y: 20 },
      { x: 9, y: 21 },
      { x: 10, y: 21 },
      { x: 30, y: 22 },
    ])
    this.estates.set('8', [])
  }

  static build(version: string, roadOnSale: boolean): MapSnapshot {
    const kind = new Uint8Array(GRID_SIZE * GRID_SIZE)
    const group = new Int32Array(GRID_SIZE * GRID_SIZE)
    const onSale = new Uint8Array(GRID_SIZE * GRID_SIZE)
    for (let x = -150; x <= 150; x++) {
      kind[cellIndex(x, 0)] = TILE_ROAD
      group[cellIndex(x, 0)] = 1
      onSale[cellIndex(x, 0)] = roadOnSale ? 1 : 0
    }
    for (const [x, y] of [
      [10, 20],
      [11, 20],
      [9, 21],
      [10, 21],
      [30, 22],
    ] as const) {
      kind[cellIndex(x, y)] = TILE_OWNED
      group[cellIndex(x, y)] = 700
    }
    kind[cellIndex(3, 3)] = TILE_OWNED
    onSale[cellIndex(3, 3)] = 1
    kind[cellIndex(-5, 5)] = TILE_DISTRICT
    group[cellIndex(-5, 5)] = 2
    return { version, kind, group, onSale }
  }

  snapshot(): MapSnapshot {
    return this.current
  }

  estateParcels(id: string) {
    return this.estates.get(id)
  }
}

const pngSize = (body: Buffer) => ({ width: body.readUInt32BE(16), height: body.readUInt32BE(20) })

const db = useTestDatabase()
let app: App
const grid = new TestGrid()

beforeAll(async () => {
  app = await createApp({ name: 'land-test', version: '0.0.0', sql: db.sql })
  // one renderer for both copies, as the service's context holds one
  const ctx = { map: grid, images: new MapImageRenderer(DEFAULT_IMAGE_CACHE_BYTES) }
  await app.register(mapImageRoutes, { ctx })
  await app.register(mapImageRoutes, { ctx, prefix: '/v1' })
  await app.ready()
})

afterAll(async () => {
  await app?.close()
})

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers })

describe('GET /map.png', () => {
  it('answers a 500×500 PNG by default, with ETag and Cache-Control', async () => {
    const res = await get('/map.png')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/png')
    expect(res.headers['cache-control']).toBe('public, max-age=60')
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(pngSize(res.rawPayload)).toEqual({ width: 500, height: 500 })
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length)
  })

  it('draws the requested size under / and /v1 alike, and never compresses the PNG', async () => {
    const url = '/map.png?width=300&height=120&size=20&center=-10,40&selected=1,2;3,4&publications=true'
    const res = await get(url, { 'accept-encoding': 'gzip, br' })
    const v1 = await get(`/v1${url}`, { 'accept-encoding': 'gzip' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-encoding']).toBeUndefined()
    expect(pngSize(res.rawPayload)).toEqual({ width: 300, height: 120 })
    expect(v1.statusCode).toBe(200)
    expect(v1.headers['content-encoding']).toBeUndefined()
    expect(v1.headers.etag).toBe(res.headers.etag)
    expect(v1.rawPayload.equals(res.rawPayload)).toBe(true)
  })

  it('answers 304 to a matching If-None-Match, and a new image when the data changes', async () => {
    const url = '/map.png?width=200&height=200&publications=true'
    const first = await get(url)
    const etag = first.headers.etag as string
    const again = await get(url, { 'if-none-match': etag })
    expect(again.statusCode).toBe(304)
    expect(again.rawPayload.length).toBe(0)
    expect(again.headers.etag).toBe(etag)
    expect(again.headers['cache-control']).toBe('public, max-age=60')
    expect((await get(url, { 'if-none-match': `"x", W/${etag}` })).statusCode).toBe(304)
    expect((await get(url, { 'if-none-match': '"something-else"' })).statusCode).toBe(200)

    const other = await get('/map.png?width=200&height=200&publications=false', { 'if-none-match': etag })
    expect(other.statusCode).toBe(200)
    expect(other.headers.etag).not.toBe(etag)

    grid.current = TestGrid.build('v2', true)
    try {
      const changed = await get(url, { 'if-none-match': etag })
      expect(changed.statusCode).toBe(200)
      expect(changed.headers.etag).not.toBe(etag)
      expect(changed.rawPayload.equals(first.rawPayload)).toBe(false) // the road is now on sale
    } finally {
      grid.current = TestGrid.build('v1', false)
    }
  })

  it('gives the same ETag to the same selection however it is written', async () => {
    const a = await get('/map.png?selected=1,2;3,4;1,2')
    const b = await get('/map.png?selected=3,4;1,2;')
    expect(a.statusCode).toBe(200)
    expect(a.headers.etag).toBe(b.headers.etag)
    expect(a.rawPayload.equals(b.rawPayload)).toBe(true)
  })

  it('serves concurrent identical requests with identical bytes', async () => {
    const url = '/map.png?width=640&height=480&size=8&center=20,20&publications=true'
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(url)))
    for (const res of answers) {
      expect(res.statusCode).toBe(200)
      expect(res.rawPayload.equals(answers[0]!.rawPayload)).toBe(true)
    }
  })

  it('answers too many parcels with the 500 envelope of the spec', async () => {
    const res = await get('/map.png?width=1024&height=1024&size=5')
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({
      ok: false,
      error: 'Too many parcels. You are trying to render 42436 parcels and the maximum allowed is 15000.',
      code: 'too_many_parcels',
      data: { parcels: 42436, max: 15000 },
    })
    expect((await get('/map.png?width=2048&height=2048&size=17&publications=true')).statusCode).toBe(200)
  })
})

describe('bad parameters are 400s that name the parameter and the value', () => {
  const cases: Array<[url: string, parameter: string, value: string]> = [
    ['/map.png?width=31', 'width', '31'],
    ['/map.png?width=2049', 'width', '2049'],
    ['/map.png?width=abc', 'width', 'abc'],
    ['/map.png?width=1.5', 'width', '1.5'],
    ['/map.png?width=', 'width', ''],
    ['/map.png?height=0', 'height', '0'],
    ['/map.png?height=-500', 'height', '-500'],
    ['/map.png?size=4', 'size', '4'],
    ['/map.png?size=41', 'size', '41'],
    ['/map.png?size=ten', 'size', 'ten'],
    ['/map.png?size=10&size=20', 'size', '10,20'],
    ['/map.png?center=151,0', 'center', '151,0'],
    ['/map.png?center=0,-151', 'center', '0,-151'],
    ['/map.png?center=abc', 'center', 'abc'],
    ['/map.png?center=1;2', 'center', '1;2'],
    ['/map.png?center=1.5,2', 'center', '1.5,2'],
    ['/map.png?selected=1,2;x', 'selected', '1,2;x'],
    ['/map.png?selected=0,151', 'selected', '0,151'],
    ['/map.png?selected=1,2;;3,4', 'selected', '1,2;;3,4'],
    ['/map.png?publications=maybe', 'publications', 'maybe'],
    ['/parcels/151/0/map.png', 'x', '151'],
    ['/parcels/0/-151/map.png', 'y', '-151'],
    ['/parcels/abc/0/map.png', 'x', 'abc'],
    ['/parcels/1.5/0/map.png', 'x', '1.5'],
    ['/parcels/0/0/map.png?width=5000', 'width', '5000'],
    ['/parcels/0/0/map.png?publications=2', 'publications', '2'],
    ['/estates/7/map.png?size=1', 'size', '1'],
    ['/estates/7/map.png?height=9999', 'height', '9999'],
    ['/v1/map.png?width=0', 'width', '0'],
    // integers are plain decimal: no hex, exponent, sign or padding, even where the value would fit
    ['/parcels/1e2/-20/map.png', 'x', '1e2'],
    ['/parcels/%2B1/0/map.png', 'x', '+1'],
    ['/parcels/0/%201/map.png', 'y', ' 1'],
    ['/parcels/0x10/0/map.png', 'x', '0x10'],
    ['/map.png?size=0x10', 'size', '0x10'],
    ['/map.png?height=1e2', 'height', '1e2'],
    ['/map.png?width=%2B100', 'width', '+100'],
    ['/estates/7/map.png?width=100.0', 'width', '100.0'],
  ]

  it.each(cases)('%s', async (url, parameter, value) => {
    const res = await get(url)
    expect(res.statusCode).toBe(400)
    const body = res.json()
    expect(body).toMatchObject({ ok: false, code: 'bad_request' })
    expect(body.error).toContain(parameter)
    expect(body.error).toContain(`"${value}"`)
  })

  it('says what a coordinate should look like instead of quoting a regular expression', async () => {
    const center = (await get('/map.png?center=abc')).json()
    expect(center.error).toBe(
      'Invalid query parameter center "abc": expected x,y with integers from -150 to 150',
    )
    const selected = (await get('/map.png?selected=1,2;x')).json()
    expect(selected.error).toContain('expected x,y coordinates separated by semicolons')
    expect(selected.error).not.toContain('^')
  })

  it('lists every bad parameter at once', async () => {
    const res = await get('/map.png?width=1&size=99')
    expect(res.statusCode).toBe(400)
    const body = res.json()
    expect(body.data.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'query.width', value: '1' }),
        expect.objectContaining({ path: 'query.size', value: '99' }),
      ]),
    )
  })
})

describe('GET /parcels/:x/:y/map.png', () => {
  it('is the map centred on the parcel with the parcel selected', async () => {
    const res = await get('/parcels/3/-4/map.png?width=100&height=80&size=12&publications=true')
    const same = await get('/map.png?width=100&height=80&size=12&publications=true&center=3,-4&selected=3,-4')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/png')
    expect(res.rawPayload.equals(same.rawPayload)).toBe(true)
    expect(res.headers.etag).toBe(same.headers.etag)
    expect(
      (
        await get('/parcels/3/-4/map.png?width=100&height=80&size=12&publications=true', {
          'if-none-match': res.headers.etag as string,
        })
      ).statusCode,
    ).toBe(304)
  })

  it('accepts the grid corners', async () => {
    expect((await get('/parcels/-150/150/map.png')).statusCode).toBe(200)
    expect((await get('/v1/parcels/150/-150/map.png')).statusCode).toBe(200)
  })
})

describe('GET /estates/:id/map.png', () => {
  it('is centred on the median parcel with the estate selected', async () => {
    // xs 9,10,10,11,30 → 10; ys 20,20,21,21,22 → 21
    const res = await get('/estates/7/map.png?width=160&height=160&size=10')
    const same = await get(
      '/map.png?width=160&height=160&size=10&center=10,21&selected=10,20;11,20;9,21;10,21;30,22',
    )
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/png')
    expect(res.headers.etag).toMatch(/^"/)
    expect(res.rawPayload.equals(same.rawPayload)).toBe(true)
    const again = await get('/v1/estates/7/map.png?width=160&height=160&size=10', {
      'if-none-match': res.headers.etag as string,
    })
    expect(again.statusCode).toBe(304)
  })

  it('is 404 for an unknown estate and for one without parcels', async () => {
    const unknown = await get('/estates/999/map.png')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toMatchObject({ ok: false, code: 'not_found' })
    expect(unknown.json().error).toContain('999')
    const empty = await get('/estates/8/map.png')
    expect(empty.statusCode).toBe(404)
    expect(empty.json()).toMatchObject({ ok: false, code: 'estate_empty' })
  })

  it('answers too many parcels for an estate image too', async () => {
    const res = await get('/estates/7/map.png?width=2048&height=2048&size=5')
    expect(res.statusCode).toBe(500)
    expect(res.json().code).toBe('too_many_parcels')
    expect(res.json().error).toBe(
      'Too many parcels. You are trying to render 169744 parcels and the maximum allowed is 15000.',
    )
  })
})
