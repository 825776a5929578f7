import { promisify } from 'node:util'
import { brotliDecompress, gunzip } from 'node:zlib'
import { BAD_ENCODINGS, BAD_INTEGERS } from '@genesis/common/testing'
import { AtlasTile, LegacyTile, type Tile } from '@genesis/wire/land'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AtlasView } from '../src/atlas/atlas-view.js'
import { LEGACY_TYPE, parseTileFilter } from '../src/atlas/tiles.js'
import { PLAZA_DISTRICT_ID, ROAD_DISTRICT_ID } from '../src/domain/constants.js'
import { expectSchema, type Land, startLand } from './helpers.js'

/** The /v2/tiles and /v1/tiles shapes, checked against the land API's own answers for the same parcels. */

interface ApiParcel {
  x: number
  y: number
  owner: string | null
  district_id: string | null
  estate_id: string | null
  data: { name: string }
  publication: { price: number } | null
}
interface ApiEstate {
  id: string
  owner: string | null
  data: { name: string; parcels: Array<{ x: number; y: number }> }
  publication: { price: number } | null
}

let land: Land
const get = (url: string, headers: Record<string, string> = {}) =>
  land.app.inject({ method: 'GET', url, headers })
const tilesOf = async (url: string) => {
  const response = await get(url)
  expect(response.statusCode, url).toBe(200)
  return response.json().data as Record<string, Partial<Tile>>
}

// A 41 × 41 rectangle with estates, roads, districts, listings and unowned land in it (checked below).
const RECT = { minX: -60, maxX: -20, minY: 76, maxY: 116 }
const RECT_QUERY = `x1=${RECT.maxX}&y1=${RECT.minY}&x2=${RECT.minX}&y2=${RECT.maxY}`
let parcels: Map<string, ApiParcel>
let estates: Map<string, ApiEstate>

beforeAll(async () => {
  land = await startLand()
  const map = await get(`/map?nw=${RECT.minX},${RECT.maxY}&se=${RECT.maxX},${RECT.minY}`)
  const assets = map.json().data.assets as { parcels: ApiParcel[]; estates: ApiEstate[] }
  parcels = new Map(assets.parcels.map((p) => [`${p.x},${p.y}`, p]))
  estates = new Map(assets.estates.map((e) => [e.id, e]))
}, 120_000)
afterAll(async () => {
  await land?.close()
})

/** What joins a parcel to its neighbours, derived from the API alone: its district, else its estate. */
const joinKey = (p: ApiParcel | undefined) =>
  p === undefined
    ? null
    : p.district_id !== null
      ? `d:${p.district_id}`
      : p.estate_id !== null
        ? `e:${p.estate_id}`
        : null

function expectedType(p: ApiParcel) {
  if (p.district_id === ROAD_DISTRICT_ID) return 'road'
  if (p.district_id === PLAZA_DISTRICT_ID) return 'plaza'
  if (p.district_id !== null) return 'district'
  return p.owner !== null || p.estate_id !== null ? 'owned' : 'unowned'
}

function expectedPrice(p: ApiParcel): number | undefined {
  const estate = p.estate_id === null ? undefined : estates.get(p.estate_id)
  return p.publication?.price ?? estate?.publication?.price ?? undefined
}

describe('GET /v2/tiles', () => {
  it('answers every parcel of the grid, each tile in the documented shape', async () => {
    const response = await get('/v2/tiles')
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    const body = response.json() as { ok: true; data: Record<string, Tile> }
    expect(body.ok).toBe(true)
    const tiles = Object.values(body.data)
    expect(tiles).toHaveLength(301 * 301)
    for (const tile of tiles.filter((_, i) => i % 97 === 0)) expectSchema(AtlasTile, tile)
    for (const [id, tile] of Object.entries(body.data)) {
      expect(tile.id).toBe(id)
      // Absent rather than null, and nothing unowned is ever joined (only estates and districts are).
      expect(Object.values(tile)).not.toContain(null)
      if (tile.type === 'unowned')
        expect(tile.top || tile.left || tile.topLeft || 'owner' in tile).toBe(false)
    }
    const types = new Set(tiles.map((t) => t.type))
    expect([...types].sort()).toEqual(['district', 'owned', 'plaza', 'road', 'unowned'])
  }, 120_000)

  it('gives each tile the type, owner, estate, name and price the land API gives its parcel', async () => {
    const tiles = await tilesOf(`/v2/tiles?${RECT_QUERY}`)
    expect(Object.keys(tiles)).toHaveLength(41 * 41)
    let listed = 0
    for (const [id, p] of parcels) {
      const tile = tiles[id] as Tile
      expect(tile, id).toBeDefined()
      expect(tile.type, id).toBe(expectedType(p))
      const estate = p.estate_id === null ? undefined : estates.get(p.estate_id)
      expect(tile.owner, id).toBe(estate?.owner ?? p.owner ?? undefined)
      expect(tile.estateId, id).toBe(p.estate_id ?? undefined)
      if (estate?.data.name) expect(tile.name, id).toBe(estate.data.name)
      else if (p.data.name) expect(tile.name, id).toBe(p.data.name)
      // The price of the parcel's own open, unexpired listing, else its estate's; absent otherwise.
      expect(tile.price, id).toBe(expectedPrice(p))
      if (tile.price !== undefined) listed++
      expect('tokenId' in tile, id).toBe(tile.owner !== undefined)
    }
    expect(listed).toBeGreaterThan(0)
  })

  it('joins a tile to the neighbour above, to the left and above-left exactly when they share an estate or district', async () => {
    const tiles = await tilesOf(`/v2/tiles?${RECT_QUERY}`)
    const seen = { estateEdge: 0, estateInner: 0, roadEdge: 0, roadInner: 0 }
    for (const [id, p] of parcels) {
      const tile = tiles[id] as Tile
      const key = joinKey(p)
      const joined = (dx: number, dy: number) =>
        key !== null && joinKey(parcels.get(`${p.x + dx},${p.y + dy}`)) === key
      // Neighbours outside the rectangle are not known here: only tiles whose neighbours are inside it.
      if (p.x === RECT.minX || p.y === RECT.maxY) continue
      expect([tile.top, tile.left, tile.topLeft], id).toEqual([joined(0, 1), joined(-1, 0), joined(-1, 1)])
      if (p.estate_id !== null && p.district_id === null) tile.top ? seen.estateInner++ : seen.estateEdge++
      if (p.district_id === ROAD_DISTRICT_ID) tile.left ? seen.roadInner++ : seen.roadEdge++
    }
    // The rectangle holds both sides of each rule: estates and roads with edges and insides.
    expect(
      Object.values(seen).every((n) => n > 0),
      JSON.stringify(seen),
    ).toBe(true)
  })

  it('takes the rectangle in any corner order, whole parcels only, and ignores it unless all four are numbers', async () => {
    const a = await tilesOf('/v2/tiles?x1=-1&y1=-1&x2=1&y2=1')
    const b = await tilesOf('/v2/tiles?x1=1&y1=1&x2=-1&y2=-1')
    expect(Object.keys(a).sort()).toEqual([
      '-1,-1',
      '-1,0',
      '-1,1',
      '0,-1',
      '0,0',
      '0,1',
      '1,-1',
      '1,0',
      '1,1',
    ])
    expect(b).toEqual(a)
    expect(Object.keys(await tilesOf('/v2/tiles?x1=-0.5&y1=0&x2=0.5&y2=0'))).toEqual(['0,0'])
    expect(await tilesOf('/v2/tiles?x1=200&y1=200&x2=300&y2=300')).toEqual({})
    // Clamped to the grid.
    expect(Object.keys(await tilesOf('/v2/tiles?x1=149&y1=149&x2=999&y2=999'))).toHaveLength(4)
    for (const bad of ['x1=abc&y1=0&x2=1&y2=1', 'x1=&y1=0&x2=1&y2=1', 'y1=0&x2=1&y2=1']) {
      const tiles = await tilesOf(`/v2/tiles?${bad}&include=id`)
      expect(Object.keys(tiles), bad).toHaveLength(301 * 301)
    }
  }, 60_000)

  it('keeps only the fields of include=, all but those of exclude=, ignoring unknown names', async () => {
    const included = await tilesOf('/v2/tiles?x1=0&y1=0&x2=1&y2=1&include=x,bogus,type,price,y')
    for (const tile of Object.values(included)) {
      // in the tile's own order, whatever the order asked
      expect(Object.keys(tile).filter((k) => k !== 'price')).toEqual(['x', 'y', 'type'])
    }
    const excluded = await tilesOf(`/v2/tiles?${RECT_QUERY}&exclude=owner,tokenId,nope,updatedAt`)
    const whole = await tilesOf(`/v2/tiles?${RECT_QUERY}`)
    for (const [id, tile] of Object.entries(excluded)) {
      const { owner: _o, tokenId: _t, updatedAt: _u, ...rest } = whole[id]!
      expect(tile, id).toEqual(rest)
    }
    // the fields that take work to make, when asked for, are made as in the whole answer
    const withTimes = await tilesOf(`/v2/tiles?${RECT_QUERY}&include=updatedAt,tokenId,id`)
    for (const [id, tile] of Object.entries(withTimes)) {
      const { id: wholeId, updatedAt, tokenId } = whole[id]!
      expect(tile, id).toEqual({ id: wholeId, updatedAt, ...(tokenId === undefined ? {} : { tokenId }) })
    }
    // include wins when both are given, as atlas-server does.
    const both = await tilesOf('/v2/tiles?x1=0&y1=0&x2=0&y2=0&include=id&exclude=id')
    expect(both).toEqual({ '0,0': { id: '0,0' } })
    expect(await tilesOf('/v2/tiles?x1=0&y1=0&x2=0&y2=0&include=nothing,known')).toEqual({ '0,0': {} })
  })

  it('gives every spelling of one answer one ETag and the same bytes: field order, repeats, corners, the whole set', async () => {
    const spellings = [
      [
        '/v2/tiles?x1=-5&y1=-5&x2=5&y2=5&include=x,y,type',
        '/v2/tiles?x1=5&y1=5&x2=-5&y2=-5&include=type,y,x',
        '/v2/tiles?x2=5.9&y2=-5&x1=-5.5&y1=5&include=y,y,x,type,bogus',
      ],
      [
        // the whole grid, however the rectangle and the fields are written
        '/v2/tiles',
        '/v2/tiles?x1=-999&y1=-999&x2=999&y2=999',
        `/v2/tiles?include=${['price', 'tokenId', 'estateId', 'owner', 'updatedAt', 'topLeft', 'left', 'top', 'name', 'type', 'y', 'x', 'id'].join(',')}`,
        '/v2/tiles?exclude=nothing',
      ],
      // outside the grid: empty, in one spelling
      ['/v2/tiles?x1=200&y1=200&x2=300&y2=300', '/v2/tiles?x1=-400&y1=0&x2=-300&y2=5&include=id'],
    ]
    for (const urls of spellings) {
      const answers = await Promise.all(urls.map((url) => get(url)))
      for (const [i, answer] of answers.entries()) expect(answer.statusCode, urls[i]).toBe(200)
      expect(new Set(answers.map((a) => a.headers.etag)).size, urls.join(' ')).toBe(1)
      expect(new Set(answers.map((a) => a.body)).size, urls.join(' ')).toBe(1)
    }
    expect((await get('/v2/tiles?x1=200&y1=200&x2=300&y2=300')).json()).toEqual({ ok: true, data: {} })
  })

  it('answers 304 to a matching If-None-Match or If-Modified-Since, and compresses once per encoding', async () => {
    const first = await get(`/v2/tiles?${RECT_QUERY}`)
    const etag = first.headers.etag as string
    const lastModified = first.headers['last-modified'] as string
    expect(etag).toMatch(/^W\/".+"$/)
    expect(Date.parse(lastModified)).toBeGreaterThan(0)
    expect((await get(`/v2/tiles?${RECT_QUERY}`, { 'if-none-match': etag })).statusCode).toBe(304)
    expect((await get(`/v2/tiles?${RECT_QUERY}`, { 'if-modified-since': lastModified })).statusCode).toBe(304)
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString()
    expect((await get(`/v2/tiles?${RECT_QUERY}`, { 'if-modified-since': earlier })).statusCode).toBe(200)
    // If-None-Match decides when both are sent.
    expect(
      (
        await get(`/v2/tiles?${RECT_QUERY}`, {
          'if-none-match': '"other"',
          'if-modified-since': lastModified,
        })
      ).statusCode,
    ).toBe(200)
    // Another query is another answer.
    expect((await get('/v2/tiles?x1=0&y1=0&x2=0&y2=0', { 'if-none-match': etag })).statusCode).toBe(200)

    const identity = await get('/v2/tiles')
    const br = await get('/v2/tiles', { 'accept-encoding': 'br' })
    const gz = await get('/v2/tiles', { 'accept-encoding': 'gzip' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(br.rawPayload.length).toBeLessThan(identity.rawPayload.length / 5)
    expect((await promisify(brotliDecompress)(br.rawPayload)).equals(identity.rawPayload)).toBe(true)
    expect((await promisify(gunzip)(gz.rawPayload)).equals(identity.rawPayload)).toBe(true)
    expect(br.headers.etag).toBe(identity.headers.etag)
  }, 120_000)

  it('serves concurrent first requests the same prepared bytes', async () => {
    await land.grid.refresh()
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => get('/v2/tiles', { 'accept-encoding': 'br' })),
    )
    for (const answer of answers) {
      expect(answer.statusCode, answer.body.slice(0, 300)).toBe(200)
      expect(answer.rawPayload.equals(answers[0]!.rawPayload)).toBe(true)
      expect(answer.headers.etag).toBe(answers[0]!.headers.etag)
    }
  }, 120_000)
})

describe('bad queries', () => {
  // What a fuzz run sends (test/fuzz.test.ts leaves these routes to this test: their answers are large).
  const VALUES = [...BAD_ENCODINGS, ...BAD_INTEGERS, 'a'.repeat(3000), 'Infinity', 'NaN', '']
  it('never answer a 5xx nor leave the envelope, in either shape', async () => {
    for (const path of ['/v2/tiles', '/v1/tiles']) {
      for (const name of ['x1', 'y1', 'x2', 'y2', 'include', 'exclude']) {
        for (const value of VALUES) {
          // The other corners stay a small rectangle unless this value breaks it.
          const rect = { x1: '0', y1: '0', x2: '1', y2: '1', include: 'id,type', exclude: '' } as Record<
            string,
            string
          >
          rect[name] = value
          const query = Object.entries(rect)
            .map(([k, v]) => `${k}=${v}`)
            .join('&')
          const response = await get(`${path}?${query}`)
          expect(response.statusCode, `${path}?${query.slice(0, 80)}`).toBeLessThan(500)
          const body = response.json() as { ok: boolean; code?: string }
          expect(typeof body.ok).toBe('boolean')
          if (!body.ok) expect(response.statusCode).toBe(400)
        }
      }
      // A parameter given twice is refused by the kit, in the envelope.
      const twice = await get(`${path}?x1=0&x1=1&y1=0&x2=0&y2=0`)
      expect(twice.statusCode).toBe(400)
      expect(twice.json()).toMatchObject({ ok: false, code: 'bad_request' })
    }
  }, 300_000)
})

describe('GET /v1/tiles (legacy)', () => {
  it('numbers the types as atlas-server did, flags as 1 only when set, estate_id', async () => {
    const legacy = await tilesOf(`/v1/tiles?${RECT_QUERY}`)
    const tiles = await tilesOf(`/v2/tiles?${RECT_QUERY}`)
    const numbers = new Set<number>()
    for (const [id, tile] of Object.entries(tiles) as Array<[string, Tile]>) {
      const old = legacy[id] as Record<string, unknown>
      expectSchema(LegacyTile, old)
      const type = tile.price !== undefined ? LEGACY_TYPE.onSale : LEGACY_TYPE[tile.type]
      expect(old.type, id).toBe(type)
      numbers.add(type)
      expect([old.x, old.y]).toEqual([tile.x, tile.y])
      for (const flag of ['top', 'left', 'topLeft'] as const)
        expect(old[flag], id).toBe(tile[flag] ? 1 : undefined)
      expect(old.estate_id, id).toBe(tile.estateId)
      expect(old.price, id).toBe(tile.price)
      expect(old.owner, id).toBe(tile.owner)
      expect('id' in old).toBe(false)
    }
    expect([...numbers].sort((a, b) => a - b)).toEqual([5, 7, 9, 10, 11])
    const whole = await tilesOf('/v1/tiles')
    expect(Object.keys(whole)).toHaveLength(301 * 301)
    expect(whole['0,0']).toMatchObject({ type: 8, x: 0, y: 0 })
  }, 60_000)

  it('decides the number from the whole tile even when price is not asked for', async () => {
    const [id] = Object.entries(await tilesOf(`/v2/tiles?${RECT_QUERY}`)).find(
      ([, t]) => t.price !== undefined,
    )!
    const [x, y] = id.split(',')
    const only = await tilesOf(`/v1/tiles?x1=${x}&y1=${y}&x2=${x}&y2=${y}&include=type`)
    expect(only).toEqual({ [id]: { type: 10 } })
  })
})

describe('GET /v2/tiles/info', () => {
  it('gives lastUpdatedAt as the tiles Last-Modified, no-cache', async () => {
    const info = await get('/v2/tiles/info')
    expect(info.statusCode).toBe(200)
    expect(info.headers['cache-control']).toBe('no-cache')
    const { lastUpdatedAt } = info.json() as { lastUpdatedAt: number }
    const tiles = await get('/v2/tiles?x1=0&y1=0&x2=0&y2=0')
    expect(lastUpdatedAt).toBe(Date.parse(tiles.headers['last-modified'] as string))
  })
})

describe('a listing that expires or is taken down', () => {
  it('loses its price, and the tiles get a new ETag and a later Last-Modified', async () => {
    const before = await tilesOf(`/v2/tiles?${RECT_QUERY}`)
    const beforeHeaders = (await get(`/v2/tiles?${RECT_QUERY}`)).headers
    const [id] = Object.entries(before).find(
      ([key, t]) => t.price !== undefined && t.estateId === undefined && parcels.get(key)?.publication,
    )!
    await land.db
      .sql`update publications set expires_at = ${Date.now() - 1000} where type = 'parcel' and asset_id = ${id} and status = 'open'`
    await land.grid.refresh()
    const after = await get(`/v2/tiles?${RECT_QUERY}`, { 'if-none-match': beforeHeaders.etag as string })
    expect(after.statusCode).toBe(200)
    const tile = (after.json().data as Record<string, Tile>)[id]!
    expect(tile.price).toBeUndefined()
    expect((await tilesOf(`/v1/tiles?${RECT_QUERY}`))[id]).not.toHaveProperty('price')
    expect(after.headers.etag).not.toBe(beforeHeaders.etag)
    expect(Date.parse(after.headers['last-modified'] as string)).toBeGreaterThan(
      Date.parse(beforeHeaders['last-modified'] as string),
    )
    const info = (await get('/v2/tiles/info')).json() as { lastUpdatedAt: number }
    expect(info.lastUpdatedAt).toBe(Date.parse(after.headers['last-modified'] as string))
  }, 120_000)
})

describe('a grid change while the atlas is in use', () => {
  it("builds the new view's atlas ahead of the next request", async () => {
    const index = land.atlas
    expect((await get('/v2/tiles/info')).statusCode).toBe(200)
    await land.grid.refresh()
    const view = land.grid.current()
    // guards: the grid's onView listener dropped: the atlas would wait for a request to build
    const deadline = Date.now() + 5000
    while (!index.has(view) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(index.has(view)).toBe(true)
  })
})

describe('the atlas of a view', () => {
  it('has one version whether or not it keeps its tile rows, and makes them when /tiles asks', async () => {
    const view = land.grid.current()
    const kept = await AtlasView.build(view, undefined, true)
    const notKept = await AtlasView.build(view, undefined, false)
    expect(notKept.version).toBe(kept.version)
    // a PNG or metadata client alone does not hold the tiles; the first /tiles request makes them
    expect(notKept.existing('v2', {})).toBeUndefined()
    const whole = await notKept.body('v2', {})
    expect(whole.toBuffer().equals((await kept.body('v2', {})).toBuffer())).toBe(true)
    const rect = parseTileFilter({ x1: '-3', y1: '-3', x2: '3', y2: '3' })
    const sliced = await notKept.body('v2', rect)
    expect(sliced.toBuffer().equals((await kept.body('v2', rect)).toBuffer())).toBe(true)
  })
})

describe('OpenAPI', () => {
  it('documents the /v2 routes and the legacy /v1/tiles, once each', async () => {
    const doc = (await get('/openapi.json')).json() as { paths: Record<string, unknown> }
    for (const path of [
      '/v2/tiles',
      '/v2/tiles/info',
      '/v1/tiles',
      '/v2/parcels/{x}/{y}',
      '/v2/estates/{id}',
      '/v2/contracts/{address}/tokens/{id}',
      '/v2/map.png',
      '/v2/parcels/{x}/{y}/map.png',
      '/v2/estates/{id}/map.png',
      '/v2/districts',
      '/v2/addresses/{address}/contributions',
    ]) {
      expect(doc.paths, path).toHaveProperty([path])
    }
    expect(doc.paths).not.toHaveProperty(['/tiles'])
    expect(doc.paths).not.toHaveProperty(['/v1/tiles/info'])
    expect((await get('/tiles')).statusCode).toBe(404)
  })
})
