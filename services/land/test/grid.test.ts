import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { ParcelRecord, PublicationRecord } from '../src/db/rows.js'
import { blankParcel } from '../src/db/rows.js'
import { PLAZA_DISTRICT_ID, ROAD_DISTRICT_ID } from '../src/domain/constants.js'
import { cellIndex } from '../src/domain/geometry.js'
import { TILE_DISTRICT, TILE_OWNED, TILE_PLAZA, TILE_ROAD, TILE_UNOWNED } from '../src/domain/tiles.js'
import { buildGridData, type GridInput } from '../src/grid/data.js'
import { ByteLru, negotiateEncoding, SLICE_BYTES } from '../src/grid/map-body.js'
import { GridView, PARCEL_ANSWERS_KEPT, WHOLE_GRID } from '../src/grid/view.js'
import { elementLines } from '../src/importer/json-lines.js'

const DISTRICT = '0b0b0b0b-0000-4000-8000-000000000001'
const OWNER = '0x1111111111111111111111111111111111111111'

function parcel(x: number, y: number, over: Partial<ParcelRecord> = {}): ParcelRecord {
  return { ...blankParcel(x, y), ...over }
}

function publication(
  assetId: string,
  type: 'parcel' | 'estate',
  created: number,
  expires: number,
): PublicationRecord {
  return {
    tx_hash: `0x${String(created).padStart(64, '0')}`,
    tx_status: 'confirmed',
    owner: OWNER,
    price: 10,
    status: 'open',
    buyer: null,
    contract_id: 'c',
    block_number: 1,
    expires_at: expires,
    block_time_created_at: created,
    block_time_updated_at: null,
    type,
    asset_id: assetId,
    marketplace_id: 'm',
  }
}

/** A small world: a road along y = 0, a plaza at 20..21 x 20, a district square and an estate. */
function world(open = new Map<string, PublicationRecord[]>()): GridInput {
  const parcels: ParcelRecord[] = []
  for (let x = -150; x <= 150; x++)
    parcels.push(parcel(x, 0, { district_id: ROAD_DISTRICT_ID, owner: OWNER }))
  parcels.push(
    parcel(20, 20, { district_id: PLAZA_DISTRICT_ID }),
    parcel(21, 20, { district_id: PLAZA_DISTRICT_ID }),
  )
  for (const [x, y] of [
    [-10, -10],
    [-9, -10],
    [-10, -9],
    [-9, -9],
    [-8, -10],
  ] as const) {
    parcels.push(parcel(x, y, { district_id: DISTRICT }))
  }
  parcels.push(parcel(5, 5, { owner: OWNER, estate_id: '7' }), parcel(6, 5, { owner: OWNER, estate_id: '7' }))
  parcels.push(parcel(40, 40, { owner: OWNER }))
  return {
    parcels,
    estates: [
      {
        id: '7',
        owner: OWNER,
        name: 'Seven',
        description: '',
        district_id: null,
        tx_hash: null,
        last_transferred_at: null,
        parcels: [
          { x: 5, y: 5 },
          { x: 6, y: 5 },
        ],
      },
    ],
    districts: [
      { id: ROAD_DISTRICT_ID, name: 'Road', description: '', link: '', public: true },
      { id: PLAZA_DISTRICT_ID, name: 'Genesis Plaza', description: '', link: '', public: true },
      { id: DISTRICT, name: 'Square', description: '', link: '', public: false },
    ],
    open,
  }
}

describe('buildGridData', () => {
  const data = buildGridData(world())

  it('fills every cell and assigns the tile kinds of the seam', () => {
    expect(data.cells).toHaveLength(301 * 301)
    expect(data.cells[cellIndex(100, 100)]).toEqual(blankParcel(100, 100))
    expect(data.kind[cellIndex(3, 0)]).toBe(TILE_ROAD)
    expect(data.kind[cellIndex(20, 20)]).toBe(TILE_PLAZA)
    expect(data.kind[cellIndex(-10, -10)]).toBe(TILE_DISTRICT)
    expect(data.kind[cellIndex(5, 5)]).toBe(TILE_OWNED)
    expect(data.kind[cellIndex(40, 40)]).toBe(TILE_OWNED)
    expect(data.kind[cellIndex(41, 40)]).toBe(TILE_UNOWNED)
  })

  it('joins an estate, a district and all roads into one group each', () => {
    const estate = data.group[cellIndex(5, 5)]
    expect(estate).toBeGreaterThan(0)
    expect(data.group[cellIndex(6, 5)]).toBe(estate)
    expect(data.group[cellIndex(-150, 0)]).toBe(data.group[cellIndex(150, 0)])
    expect(data.group[cellIndex(-10, -10)]).toBe(data.group[cellIndex(-9, -9)])
    expect(data.group[cellIndex(-10, -10)]).not.toBe(estate)
    expect(data.group[cellIndex(40, 40)]).toBe(0)
  })

  it('tags proximity by BFS: parcels in between, up to 10, never for the own kind', () => {
    expect(data.tags[cellIndex(3, 1)]).toEqual({
      proximity: { road: { district_id: ROAD_DISTRICT_ID, distance: 0 } },
    })
    expect(data.tags[cellIndex(3, 11)]?.proximity?.road?.distance).toBe(10)
    expect(data.tags[cellIndex(3, 12)]).toEqual({})
    expect(data.tags[cellIndex(3, 0)]).toEqual({})
    expect(data.tags[cellIndex(22, 21)]?.proximity?.plaza).toEqual({
      district_id: PLAZA_DISTRICT_ID,
      distance: 1,
    })
    expect(data.tags[cellIndex(20, 20)]?.proximity?.plaza).toBeUndefined()
  })

  it('counts district parcels and picks the parcel nearest the centroid as centre', () => {
    const square = data.districts.find((d) => d.id === DISTRICT)!
    expect(square.parcel_count).toBe('5')
    expect(square.center).toBe('-9,-10')
  })
})

describe('GridView', () => {
  it('shows the newest open publication not expired, and rolls over when it expires', () => {
    const open = new Map([
      [
        'parcel:40,40',
        [publication('40,40', 'parcel', 3000, 5000), publication('40,40', 'parcel', 2000, 9000)],
      ],
      ['estate:7', [publication('7', 'estate', 1000, 4000)]],
    ])
    const data = buildGridData(world(open))
    const early = new GridView(data, 3500)
    expect(early.parcel(40, 40).publication?.block_time_created_at).toBe(3000)
    expect(early.onSale[cellIndex(40, 40)]).toBe(1)
    expect(early.onSale[cellIndex(5, 5)]).toBe(1)
    expect(early.onSale[cellIndex(6, 5)]).toBe(1)
    expect(early.validUntil).toBe(4000)
    const later = new GridView(data, 6000)
    expect(later.parcel(40, 40).publication?.block_time_created_at).toBe(2000)
    expect(later.onSale[cellIndex(5, 5)]).toBe(0)
    expect(later.version).not.toBe(early.version)
    const none = new GridView(data, 10_000)
    expect(none.parcel(40, 40).publication).toBeNull()
    expect(none.validUntil).toBe(Number.POSITIVE_INFINITY)
    expect(new GridView(buildGridData(world()), 0).version).toBe(none.version)
  })

  it('serialises a rectangle north to south with the estates it touches', async () => {
    const view = new GridView(buildGridData(world()), 0)
    const body = JSON.parse(
      (await view.mapBody({ minX: 5, maxX: 6, minY: 4, maxY: 5 })).toBuffer().toString(),
    )
    expect(body.data.assets.parcels.map((p: { id: string }) => p.id)).toEqual(['5,5', '6,5', '5,4', '6,4'])
    expect(body.data.assets.estates.map((e: { id: string }) => e.id)).toEqual(['7'])
    expect(body.data.total).toBe(5)
  })
})

describe('prewarm', () => {
  it('serialises the whole grid and compresses it in the background, the answers ready before any request', async () => {
    const view = new GridView(buildGridData(world()), 0)
    await view.prewarm(() => true)
    const whole = await view.mapBody(WHOLE_GRID)
    expect(await view.mapBody(WHOLE_GRID)).toBe(whole)
    // the whole grid is slices of the parcels' rows, not a second copy of them: it holds its compressed
    // forms, its slices' objects and a few bytes of its own
    expect(whole.chunks.length).toBeGreaterThan(301)
    const [gzipped, brotli] = [await whole.encoded('gzip'), await whole.encoded('br')]
    expect(whole.bytes).toBeLessThan(
      gzipped.length + brotli.length + whole.chunks.length * SLICE_BYTES + 10_000,
    )
    const json = whole.toBuffer()
    expect(JSON.parse(json.toString()).data.assets.parcels).toHaveLength(301 * 301)
    expect(gunzipSync(await whole.encoded('gzip')).equals(json)).toBe(true)
    expect(brotliDecompressSync(await whole.encoded('br')).equals(json)).toBe(true)
  })

  it('answers, once prewarmed, byte for byte what a cold view makes on demand', async () => {
    const data = buildGridData(world())
    const warm = new GridView(data, 0)
    await warm.prewarm(() => true)
    const cold = new GridView(data, 0)
    for (const [x, y] of [
      [-150, -150],
      [0, 0],
      [150, 150],
      [-3, 7],
    ] as const) {
      expect(warm.parcelEnvelope(x, y).equals(cold.parcelEnvelope(x, y))).toBe(true)
    }
    const rect = { minX: -2, minY: -2, maxX: 3, maxY: 2 }
    expect((await warm.mapBody(rect)).toBuffer().equals((await cold.mapBody(rect)).toBuffer())).toBe(true)
  })

  it('answers a parcel asked again with the same bytes, keeping at most PARCEL_ANSWERS_KEPT answers', () => {
    const view = new GridView(buildGridData(world()), 0)
    const first = view.parcelEnvelope(0, 0)
    expect(view.parcelEnvelope(0, 0)).toBe(first)
    // As many other parcels as the view keeps: the first answer is dropped with the rest, then made again.
    for (let i = 0; i < PARCEL_ANSWERS_KEPT; i++)
      view.parcelEnvelope((i % 301) - 150, Math.floor(i / 301) - 150)
    const again = view.parcelEnvelope(0, 0)
    expect(again).not.toBe(first)
    expect(again.equals(first)).toBe(true)
    expect(JSON.parse(again.toString())).toMatchObject({ ok: true, data: { id: '0,0', x: 0, y: 0 } })
  })

  it('stops as soon as the view is no longer current', async () => {
    const view = new GridView(buildGridData(world()), 0)
    let calls = 0
    await view.prewarm(() => ++calls < 3)
    expect(calls).toBe(3)
  })
})

describe('content negotiation and caches', () => {
  it.each([
    [undefined, 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['identity', 'identity'],
  ])('Accept-Encoding %s → %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected)
  })

  it('evicts the least recently used entries past the byte bound', () => {
    const lru = new ByteLru<{ bytes: number }>(100)
    lru.set('a', { bytes: 40 })
    lru.set('b', { bytes: 40 })
    lru.get('a')
    lru.set('c', { bytes: 40 })
    expect(lru.get('b')).toBeUndefined()
    expect(lru.get('a')).toBeDefined()
    expect(lru.get('c')).toBeDefined()
    // the values' bytes and the keys'
    expect(lru.bytes).toBe(82)
    lru.set('huge', { bytes: 1000 })
    expect(lru.get('huge')).toBeUndefined()
  })
})

describe('elementLines', () => {
  it('finds the line of each element of a root array or of the arrays under root keys', () => {
    const text = '[\n  {"a": "[1,2]"},\n  {\n    "b": [1, 2]\n  },\n  3\n]'
    expect(elementLines(text).root).toEqual([2, 3, 6])
    const object = '{\n "parcels": [\n  {"x": 1},\n  {"x": "\\"]"}\n ],\n "estates": [{"id": "1"}]\n}'
    const lines = elementLines(object)
    expect(lines.byKey.get('parcels')).toEqual([3, 4])
    expect(lines.byKey.get('estates')).toEqual([6])
  })
})
