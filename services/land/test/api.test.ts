import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import {
  ContributionsEnvelope,
  DistrictsEnvelope,
  type Estate,
  EstateListEnvelope,
  MapEnvelope,
  type Parcel,
  ParcelEnvelope,
  ParcelListEnvelope,
  type Publication,
  PublicationEnvelope,
  PublicationsEnvelope,
  TranslationsEnvelope,
} from '@genesis/wire/land'
import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLAZA_DISTRICT_ID, ROAD_DISTRICT_ID } from '../src/domain/constants.js'
import { expectSchema, type Land, startLand } from './helpers.js'

let land: Land
const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await land.app.inject({ method: 'GET', url, headers })
  return {
    status: response.statusCode,
    body: response.json(),
    headers: response.headers,
    raw: response.rawPayload,
  }
}

beforeAll(async () => {
  land = await startLand()
})
afterAll(async () => {
  await land?.close()
})

describe('every endpoint answers the same under / and /v1', () => {
  it.each([
    '/parcels/0/0',
    '/parcels?limit=3',
    '/estates?limit=3',
    '/districts',
    '/map?nw=-2,2&se=2,-2',
    '/translations/fr',
    '/addresses/0x004398361d0fad60d7fcf5533d94398ee9fc8ddc/contributions',
  ])('%s', async (path) => {
    const root = await get(path)
    const versioned = await get(`/v1${path}`)
    expect(root.status).toBe(200)
    expect(versioned.status).toBe(200)
    expect(versioned.body).toEqual(root.body)
  })

  it('documents the /v1 operations in the OpenAPI document', async () => {
    const { body } = await get('/openapi.json')
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/parcels/{x}/{y}',
        '/v1/map',
        '/v1/districts',
        '/v1/translations/{locale}',
      ]),
    )
  })

  it('documents the unversioned paths too, and lists every operation once (one tag each)', async () => {
    const { body } = await get('/openapi.json')
    const paths = body.paths as Record<string, Record<string, { tags?: string[]; summary?: string }>>
    const operations = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, ...operation })),
    )
    expect(operations.filter((operation) => operation.tags?.length !== 1)).toEqual([])
    const versioned = operations.filter((operation) => operation.path.startsWith('/v1/')).map((o) => o.path)
    for (const path of ['/districts', '/parcels/{x}/{y}', '/map', '/map.png', '/translations/{locale}']) {
      expect(versioned).toContain(`/v1${path}`)
      expect(paths[path]?.get).toMatchObject({
        tags: ['unversioned'],
        summary: expect.stringContaining(`(the same as /v1${path.replace(/\{(\w+)\}/g, ':$1')})`),
      })
    }
  })
})

describe('GET /parcels/:x/:y', () => {
  it('answers parcel 0,0 of Genesis Plaza with the spec fields', async () => {
    const { status, body } = await get('/parcels/0/0')
    expect(status).toBe(200)
    expectSchema(ParcelEnvelope, body)
    const parcel = body.data as Parcel
    expect(parcel).toMatchObject({ id: '0,0', x: 0, y: 0, district_id: PLAZA_DISTRICT_ID, in_estate: false })
    expect(parcel.auction_price).toBeNull()
    expect(parcel.owner).toMatch(/^0x[0-9a-f]{40}$/)
    // Inside the plaza: no plaza tag for itself, a road within 10 parcels.
    expect(parcel.tags.proximity?.plaza).toBeUndefined()
  })

  it('marks parcels of an estate', async () => {
    const [row] = await land.db.sql<Array<{ x: number; y: number; estate_id: string }>>`
      select x, y, estate_id from parcels where estate_id is not null order by x, y limit 1`
    const { body } = await get(`/parcels/${row!.x}/${row!.y}`)
    expect(body.data).toMatchObject({ in_estate: true, estate_id: row!.estate_id })
  })

  it('shows the newest open publication that has not expired', async () => {
    const [row] = await land.db.sql<Array<{ asset_id: string; tx_hash: string }>>`
      select distinct on (asset_id) asset_id, tx_hash from publications
      where type = 'parcel' and status = 'open' and expires_at > ${Date.now()}
      order by asset_id, block_time_created_at desc limit 1`
    const [x, y] = row!.asset_id.split(',')
    const { body } = await get(`/parcels/${x}/${y}`)
    expect(body.data.publication).toMatchObject({ tx_hash: row!.tx_hash, status: 'open', type: 'parcel' })
  })

  it('shows no publication when the only open one has expired', async () => {
    const [row] = await land.db.sql<Array<{ asset_id: string }>>`
      select asset_id from publications p where type = 'parcel' and status = 'open' and expires_at < ${Date.now()}
        and not exists (select 1 from publications q where q.type = 'parcel' and q.asset_id = p.asset_id
          and q.status = 'open' and q.expires_at > ${Date.now()})
      limit 1`
    expect(row).toBeDefined()
    const [x, y] = row!.asset_id.split(',')
    const { body } = await get(`/parcels/${x}/${y}`)
    expect(body.data.publication).toBeNull()
  })

  it('tags proximity to roads and plazas (distance = parcels in between, at most 10)', async () => {
    // -9..10 x -9..9 is the central plaza: 11,0 touches it, 21,0 is 10 parcels away, 22,0 is 11 away.
    const plazaOf = async (x: number, y: number) =>
      (await get(`/parcels/${x}/${y}`)).body.data.tags.proximity?.plaza
    expect(await plazaOf(11, 0)).toEqual({ district_id: PLAZA_DISTRICT_ID, distance: 0 })
    const far = await plazaOf(22, 0)
    if (far) expect(far.distance).toBeLessThanOrEqual(10)
    const [road] = await land.db.sql<Array<{ x: number; y: number }>>`
      select x, y from parcels where district_id = ${ROAD_DISTRICT_ID} order by x, y limit 1`
    const roadParcel = (await get(`/parcels/${road!.x}/${road!.y}`)).body.data as Parcel
    expect(roadParcel.tags.proximity?.road).toBeUndefined()
  })
})

describe('GET /districts', () => {
  it('lists the 42 real districts with counts from the parcels and a centre inside each', async () => {
    const { body } = await get('/districts')
    expectSchema(DistrictsEnvelope, body)
    const districts = body.data as Array<{ id: string; parcel_count: string; center: string; name: string }>
    expect(districts).toHaveLength(42)
    const byId = new Map(districts.map((d) => [d.id, d]))
    expect(byId.get(ROAD_DISTRICT_ID)?.parcel_count).toBe('9438')
    expect(byId.get(PLAZA_DISTRICT_ID)?.parcel_count).toBe('3588')
    expect(districts.reduce((sum, d) => sum + Number(d.parcel_count), 0)).toBe(46_121)
    for (const d of districts.slice(0, 5)) {
      const [x, y] = d.center.split(',').map(Number)
      const [row] = await land.db
        .sql`select district_id::text as id from parcels where x = ${x!} and y = ${y!}`
      expect(row?.id).toBe(d.id)
    }
  })
})

describe('addresses', () => {
  it('answers the contributions of an address, land_count as a string, whatever the address case', async () => {
    const address = '0x004398361d0fad60d7fcf5533d94398ee9fc8ddc'
    const { body } = await get(`/addresses/${address}/contributions`)
    expectSchema(ContributionsEnvelope, body)
    expect(body.data).toContainEqual({
      address,
      district_id: '219ac351-e6ce-4e17-8b84-eb008afddf69',
      land_count: '6',
    })
    const upper = await get(`/addresses/0x004398361D0FAD60D7FCF5533D94398EE9FC8DDC/contributions`)
    expect(upper.body.data).toEqual(body.data)
    const nobody = await get('/addresses/0x0000000000000000000000000000000000000001/contributions')
    expect(nobody.body).toEqual({ ok: true, data: [] })
  })

  it('pages through the parcels an address owns', async () => {
    const [owner] = await land.db.sql<Array<{ owner: string; n: number }>>`
      select owner, count(*)::int as n from parcels where owner is not null and district_id is null
      group by owner order by count(*) desc, owner limit 1`
    const all = await get(`/addresses/${owner!.owner}/parcels?limit=100`)
    expectSchema(ParcelListEnvelope, all.body)
    expect(all.body.data.total).toBe(owner!.n)
    const parcels = all.body.data.parcels as Parcel[]
    expect(parcels.every((p) => p.owner === owner!.owner)).toBe(true)
    const second = await get(`/addresses/${owner!.owner}/parcels?limit=5&offset=5`)
    expect(second.body.data.parcels).toEqual(parcels.slice(5, 10))
  })

  it('lists the estates an address owns', async () => {
    const [owner] = await land.db.sql<Array<{ owner: string; n: number }>>`
      select owner, count(*)::int as n from estates group by owner order by count(*) desc, owner limit 1`
    const { body } = await get(`/addresses/${owner!.owner}/estates`)
    expectSchema(EstateListEnvelope, body)
    expect(body.data.total).toBe(owner!.n)
    for (const estate of body.data.estates as Estate[]) {
      expect(estate.owner).toBe(owner!.owner)
      expect(estate.size).toBe(estate.data.parcels.length)
      expect(estate.size).toBeGreaterThanOrEqual(2)
    }
  })
})

describe('listings: GET /parcels and /estates', () => {
  const openCount = async (type: string) => {
    const [row] = await land.db.sql<Array<{ n: number }>>`
      select count(distinct asset_id)::int as n from publications
      where type = ${type} and status = 'open' and expires_at > ${Date.now()}`
    return row!.n
  }

  it('lists parcels on sale, newest listing first, 20 by default', async () => {
    const { body } = await get('/parcels')
    expectSchema(ParcelListEnvelope, body)
    const parcels = body.data.parcels as Parcel[]
    expect(parcels).toHaveLength(20)
    expect(body.data.total).toBe(await openCount('parcel'))
    const created = parcels.map((p) => p.publication!.block_time_created_at)
    expect(created).toEqual([...created].sort((a, b) => b - a))
    for (const p of parcels) {
      expect(p.publication?.status).toBe('open')
      expect(p.publication!.expires_at).toBeGreaterThan(Date.now())
    }
  })

  it('sorts by price ascending by default, and honours an explicit sort_order', async () => {
    const asc = (await get('/parcels?sort_by=price&limit=50')).body.data.parcels as Parcel[]
    const prices = asc.map((p) => p.publication!.price)
    expect(prices).toEqual([...prices].sort((a, b) => a - b))
    const desc = (await get('/parcels?sort_by=price&sort_order=desc&limit=50')).body.data.parcels as Parcel[]
    const pricesDesc = desc.map((p) => p.publication!.price)
    expect(pricesDesc).toEqual([...pricesDesc].sort((a, b) => b - a))
    expect(pricesDesc[0]).toBeGreaterThan(prices[0]!)
    const expiring = (await get('/parcels?sort_by=expires_at&limit=30')).body.data.parcels as Parcel[]
    const expires = expiring.map((p) => p.publication!.expires_at)
    expect(expires).toEqual([...expires].sort((a, b) => a - b))
  })

  it('paginates without gaps or overlaps', async () => {
    const forty = (await get('/parcels?sort_by=price&limit=40')).body.data.parcels as Parcel[]
    const page1 = (await get('/parcels?sort_by=price&limit=20')).body.data.parcels as Parcel[]
    const page2 = (await get('/parcels?sort_by=price&limit=20&offset=20')).body.data.parcels as Parcel[]
    expect([...page1, ...page2].map((p) => p.id)).toEqual(forty.map((p) => p.id))
    const beyond = await get('/parcels?offset=100000')
    expect(beyond.body.data.parcels).toEqual([])
    expect(beyond.body.data.total).toBe(await openCount('parcel'))
  })

  it('filters by sold and cancelled publications', async () => {
    for (const status of ['sold', 'cancelled'] as const) {
      const { body } = await get(`/parcels?status=${status}&limit=5`)
      expect(body.data.total).toBeGreaterThan(0)
      for (const parcel of body.data.parcels as Parcel[]) {
        const history = await get(`/parcels/${parcel.x}/${parcel.y}/publications?status=${status}`)
        expect((history.body.data as Publication[]).length).toBeGreaterThan(0)
      }
    }
  })

  it('lists estates on sale with their parcels and publication', async () => {
    const { body } = await get('/estates?sort_by=price&limit=10')
    expectSchema(EstateListEnvelope, body)
    expect(body.data.total).toBe(await openCount('estate'))
    const estates = body.data.estates as Estate[]
    const prices = estates.map((e) => e.publication!.price)
    expect(prices).toEqual([...prices].sort((a, b) => a - b))
    for (const e of estates) expect(e.publication?.type).toBe('estate')
  })
})

describe('publications', () => {
  it('lists a parcel’s publications newest first', async () => {
    const [row] = await land.db.sql<Array<{ asset_id: string; n: number }>>`
      select asset_id, count(*)::int as n from publications where type = 'parcel'
      group by asset_id having count(*) > 1 order by asset_id limit 1`
    const [x, y] = row!.asset_id.split(',')
    const { body } = await get(`/parcels/${x}/${y}/publications`)
    expectSchema(PublicationsEnvelope, body)
    const list = body.data as Publication[]
    expect(list).toHaveLength(row!.n)
    const times = list.map((p) => p.block_time_created_at)
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(list.every((p) => p.asset_id === row!.asset_id)).toBe(true)
  })

  it('answers a publication by transaction hash, in any case, and 404 when unknown', async () => {
    const [row] = await land.db.sql<
      Array<{ tx_hash: string }>
    >`select tx_hash from publications order by tx_hash limit 1`
    const { body } = await get(`/publications/${row!.tx_hash.toUpperCase().replace('0X', '0x')}`)
    expectSchema(PublicationEnvelope, body)
    expect(body.data.tx_hash).toBe(row!.tx_hash)
    const missing = await get(`/publications/0x${'0'.repeat(64)}`)
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ ok: false, code: 'not_found' })
  })
})

describe('GET /map', () => {
  it('answers the rectangle between two corners in any order, north to south, west to east', async () => {
    const a = await get('/map?nw=-2,2&se=2,-2')
    const b = await get('/map?nw=2,-2&se=-2,2')
    expectSchema(MapEnvelope, a.body)
    expect(b.body).toEqual(a.body)
    const ids = (a.body.data.assets.parcels as Parcel[]).map((p) => p.id)
    expect(ids).toHaveLength(25)
    expect(ids.slice(0, 6)).toEqual(['-2,2', '-1,2', '0,2', '1,2', '2,2', '-2,1'])
    expect(a.body.data.total).toBe(25 + a.body.data.assets.estates.length)
  })

  it('includes the estates its parcels belong to', async () => {
    const [row] = await land.db.sql<Array<{ x: number; y: number; estate_id: string }>>`
      select x, y, estate_id from parcels where estate_id is not null order by estate_id, x, y limit 1`
    const { body } = await get(`/map?nw=${row!.x},${row!.y}&se=${row!.x + 1},${row!.y - 1}`)
    const estates = body.data.assets.estates as Estate[]
    expect(estates.map((e) => e.id)).toContain(row!.estate_id)
    expect(body.data.total).toBe(body.data.assets.parcels.length + estates.length)
  })

  it('serves the whole grid, compressed with br or gzip when the client accepts it', async () => {
    const url = '/map?nw=-150,150&se=150,-150'
    const plain = await get(url)
    expect(plain.body.data.assets.parcels).toHaveLength(90_601)
    const [estates] = await land.db.sql<
      Array<{ n: number }>
    >`select count(distinct estate_id)::int as n from parcels`
    expect(plain.body.data.assets.estates).toHaveLength(estates!.n)
    expect(plain.body.data.total).toBe(90_601 + estates!.n)
    const br = await land.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } })
    expect(br.headers['content-encoding']).toBe('br')
    expect(brotliDecompressSync(br.rawPayload).equals(plain.raw)).toBe(true)
    const gz = await land.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gz.rawPayload).equals(plain.raw)).toBe(true)
    expect(gz.rawPayload.length).toBeLessThan(plain.raw.length / 5)
  })
})

describe('GET /translations/:locale', () => {
  it.each(['en', 'es', 'fr', 'ko', 'zh'])('answers %s with at least 60 keys', async (locale) => {
    const { status, body } = await get(`/translations/${locale}`)
    expect(status).toBe(200)
    expectSchema(TranslationsEnvelope, body)
    expect(Object.keys(body.data).length).toBeGreaterThanOrEqual(60)
  })

  it('maps a region suffix to its language and refuses unknown locales with 404', async () => {
    expect((await get('/translations/en-US')).body).toEqual((await get('/translations/en')).body)
    expect((await get('/translations/zh_CN')).body).toEqual((await get('/translations/zh')).body)
    const unknown = await get('/translations/de')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ ok: false, code: 'not_found' })
  })
})

it('answers JSON with the envelope and a JSON content type', async () => {
  const { headers, body } = await get('/parcels/10/10')
  expect(headers['content-type']).toMatch(/^application\/json/)
  expectSchema(Type.Object({ ok: Type.Literal(true), data: Type.Unknown() }), body)
})
