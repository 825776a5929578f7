import type { App } from '@genesis/common'
import { encodeTokenId } from '@genesis/contracts/land'
import { TokenMetadata } from '@genesis/wire/land'
import { loadImage } from '@napi-rs/canvas'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { ESTATE_CONTRACT, LAND_CONTRACT } from '../src/domain/constants.js'
import { expectSchema, type Land, startLand } from './helpers.js'

/**
 * Token metadata as an ERC-721 consumer reads it (name, an image it can fetch, attributes), the /v2 PNGs
 * with atlas-server's parameters, districts and contributions; a second app over the same grid stands
 * for a deployment with LAND_PUBLIC_URL set.
 */

const PUBLIC_URL = 'https://land.example.org'
let land: Land
let app: App
const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers })

beforeAll(async () => {
  land = await startLand()
  const config = loadConfig({
    LAND_PUBLIC_URL: `${PUBLIC_URL}/`,
    NODE_ENV: 'production',
    LAND_PREWARM: 'false',
  })
  app = await buildApp({ sql: land.db.sql, config, context: { grid: land.grid } })
}, 120_000)
afterAll(async () => {
  await app?.close()
  await land?.close()
})

interface Metadata {
  id: string
  name: string
  description: string
  image: string
  external_url: string
  attributes: Array<{ trait_type: string; value: number; display_type: string }>
  background_color: string
}

async function metadata(url: string): Promise<Metadata> {
  const response = await get(url)
  expect(response.statusCode, url).toBe(200)
  const body = response.json() as Metadata
  expectSchema(TokenMetadata, body)
  return body
}

/** Fetches the metadata's image as a consumer would (here, the path under the public URL) and decodes it. */
async function fetchImage(image: string) {
  expect(image.startsWith(`${PUBLIC_URL}/`)).toBe(true)
  const url = new URL(image)
  const response = await get(`${url.pathname}${url.search}`)
  expect(response.statusCode, image).toBe(200)
  expect(response.headers['content-type']).toBe('image/png')
  const png = await loadImage(response.rawPayload)
  return { width: png.width, height: png.height, headers: response.headers }
}

const trait = (m: Metadata, name: string) => m.attributes.find((a) => a.trait_type === name)?.value

interface ApiParcel {
  x: number
  y: number
  data: { name: string; description: string }
  tags: { proximity?: { road?: { distance: number }; plaza?: { distance: number } } }
}
const parcel = async (x: number, y: number) => (await get(`/parcels/${x}/${y}`)).json().data as ApiParcel

describe('parcel metadata', () => {
  it('has a name, an image that is a PNG of the parcel, X and Y and distances as number attributes', async () => {
    const named = (
      await land.db.sql<Array<{ x: number; y: number }>>`
        select x, y from parcels where name <> '' and district_id is null order by x, y limit 1`
    )[0]!
    for (const { x, y } of [named, { x: -7, y: 3 }]) {
      const api = await parcel(x, y)
      const m = await metadata(`/v2/parcels/${x}/${y}`)
      expect(m.id).toBe(encodeTokenId(x, y).toString())
      expect(m.name).toBe(api.data.name || `Parcel ${x},${y}`)
      expect(m.description).toBe(api.data.description)
      expect(m.background_color).toBe('000000')
      expect(m.external_url).toBe(`${PUBLIC_URL}/#c=${x},${y}&z=16&p=${x},${y}`)
      expect(trait(m, 'X')).toBe(x)
      expect(trait(m, 'Y')).toBe(y)
      expect(trait(m, 'Distance to Road')).toBe(api.tags.proximity?.road?.distance)
      expect(trait(m, 'Distance to Plaza')).toBe(api.tags.proximity?.plaza?.distance)
      for (const a of m.attributes) expect(a.display_type).toBe('number')
      const image = await fetchImage(m.image)
      expect([image.width, image.height]).toEqual([1024, 1024])
    }
    // By the registry and token id: the same answer, whatever the address's case.
    const id = encodeTokenId(named.x, named.y).toString()
    const byToken = await metadata(
      `/v2/contracts/${LAND_CONTRACT.toUpperCase().replace('0X', '0x')}/tokens/${id}`,
    )
    expect(byToken).toEqual(await metadata(`/v2/parcels/${named.x}/${named.y}`))
    // Negative coordinates are two's complement in each half.
    const negative = await metadata(`/v2/contracts/${LAND_CONTRACT}/tokens/${encodeTokenId(-150, -1)}`)
    expect([trait(negative, 'X'), trait(negative, 'Y')]).toEqual([-150, -1])
    // A leading zero is the same number, the same token.
    expect((await metadata(`/v2/contracts/${LAND_CONTRACT}/tokens/0${id}`)).id).toBe(id)
  }, 60_000)
})

describe('estate metadata', () => {
  it('has the name, Size and the least distances over its parcels, and an image of the estate', async () => {
    const estate = (await get('/map?nw=-40,96&se=-40,96')).json().data.assets.estates[0] as {
      id: string
      size: number
      data: { name: string; description: string; parcels: Array<{ x: number; y: number }> }
    }
    const m = await metadata(`/v2/estates/${estate.id}`)
    expect(m.id).toBe(estate.id)
    expect(m.name).toBe(estate.data.name || `Estate ${estate.id}`)
    expect(m.description).toBe(estate.data.description)
    expect(trait(m, 'Size')).toBe(estate.size)
    const tags = await Promise.all(estate.data.parcels.map((p) => parcel(p.x, p.y)))
    const least = (kind: 'road' | 'plaza') => {
      const ds = tags.flatMap((t) => (t.tags.proximity?.[kind] ? [t.tags.proximity[kind]!.distance] : []))
      return ds.length ? Math.min(...ds) : undefined
    }
    expect(trait(m, 'Distance to Road')).toBe(least('road'))
    expect(trait(m, 'Distance to Plaza')).toBe(least('plaza'))
    expect(await metadata(`/v2/contracts/${ESTATE_CONTRACT}/tokens/${estate.id}`)).toEqual(m)
    // One spelling per estate.
    expect(await metadata(`/v2/estates/00${estate.id}`)).toEqual(m)
    const image = await fetchImage(m.image)
    expect([image.width, image.height]).toEqual([1024, 1024])
  }, 60_000)
})

describe('refusals', () => {
  it('answers malformed ids and addresses 400, unknown tokens 404, in the envelope', async () => {
    const cases: Array<[string, number, string]> = [
      ['/v2/parcels/a/0', 400, 'bad_request'],
      ['/v2/parcels/0x1/0', 400, 'bad_request'],
      ['/v2/parcels/151/0', 404, 'not_found'],
      ['/v2/parcels/0/-99999', 404, 'not_found'],
      ['/v2/estates/abc', 400, 'bad_request'],
      ['/v2/estates/-1', 400, 'bad_request'],
      ['/v2/estates/999999', 404, 'not_found'],
      [`/v2/contracts/0x123/tokens/1`, 400, 'bad_request'],
      [`/v2/contracts/${LAND_CONTRACT}/tokens/12a`, 400, 'bad_request'],
      [`/v2/contracts/${LAND_CONTRACT}/tokens/-1`, 400, 'bad_request'],
      [`/v2/contracts/${LAND_CONTRACT}/tokens/0x10`, 400, 'bad_request'],
      [`/v2/contracts/${LAND_CONTRACT}/tokens/${(1n << 256n).toString()}`, 400, 'bad_request'],
      [`/v2/contracts/${LAND_CONTRACT}/tokens/${encodeTokenId(151, 0)}`, 404, 'not_found'],
      [`/v2/contracts/${ESTATE_CONTRACT}/tokens/999999`, 404, 'not_found'],
      [`/v2/contracts/0x${'1'.repeat(40)}/tokens/1`, 404, 'not_found'],
      ['/v2/estates/999999/map.png', 404, 'not_found'],
      ['/v2/parcels/151/0/map.png', 404, 'not_found'],
      ['/v2/map.png?center=abc', 400, 'bad_request'],
      ['/v2/map.png?selected=1,2;x', 400, 'bad_request'],
    ]
    for (const [url, status, code] of cases) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(status)
      expect(response.json(), url).toMatchObject({ ok: false, code })
      expect(typeof response.json().error).toBe('string')
    }
  })

  it('in production without LAND_PUBLIC_URL, metadata is a 503 rather than links made from the Host header', async () => {
    const bare = await buildApp({
      sql: land.db.sql,
      config: loadConfig({ NODE_ENV: 'production', LAND_PREWARM: 'false' }),
      context: { grid: land.grid },
    })
    try {
      const response = await bare.inject({
        method: 'GET',
        url: '/v2/parcels/0/0',
        headers: { host: 'evil.example' },
      })
      expect(response.statusCode).toBe(503)
      expect(response.json()).toMatchObject({ ok: false, code: 'public_url_missing' })
    } finally {
      await bare.close()
    }
  })

  it('links made from the Host header (development, no LAND_PUBLIC_URL) vary by Host; configured ones do not', async () => {
    const dev = await buildApp({
      sql: land.db.sql,
      config: loadConfig({ LAND_PREWARM: 'false' }),
      context: { grid: land.grid },
    })
    try {
      const one = await dev.inject({ method: 'GET', url: '/v2/parcels/0/0', headers: { host: 'a.example' } })
      const other = await dev.inject({
        method: 'GET',
        url: '/v2/parcels/0/0',
        headers: { host: 'b.example' },
      })
      expect(one.statusCode).toBe(200)
      expect(one.json().image).toMatch(/^http:\/\/a\.example\//)
      expect(other.json().image).toMatch(/^http:\/\/b\.example\//)
      for (const answer of [one, other]) expect(answer.headers.vary).toMatch(/\bHost\b/i)
      const again = await dev.inject({
        method: 'GET',
        url: '/v2/parcels/0/0',
        headers: { host: 'a.example', 'if-none-match': String(one.headers.etag) },
      })
      expect(again.statusCode).toBe(304)
      expect(again.headers.vary).toMatch(/\bHost\b/i)
    } finally {
      await dev.close()
    }
    expect((await get('/v2/parcels/0/0')).headers.vary ?? '').not.toMatch(/\bHost\b/i)
  })

  it('a configured registry is matched in any case, and the default one is then unknown', async () => {
    const registry = `0x${'Ab'.repeat(20)}`
    const custom = await buildApp({
      sql: land.db.sql,
      config: loadConfig({
        LAND_PUBLIC_URL: PUBLIC_URL,
        LAND_REGISTRY_ADDRESS: registry,
        LAND_PREWARM: 'false',
      }),
      context: { grid: land.grid },
    })
    try {
      const ok = await custom.inject({
        method: 'GET',
        url: `/v2/contracts/${registry.toLowerCase()}/tokens/0`,
      })
      expect(ok.statusCode).toBe(200)
      expect(ok.json().name).toMatch(/0,0|.+/)
      const old = await custom.inject({ method: 'GET', url: `/v2/contracts/${LAND_CONTRACT}/tokens/0` })
      expect(old.statusCode).toBe(404)
    } finally {
      await custom.close()
    }
  })
})

describe('the /v2 PNGs', () => {
  const size = async (url: string) => {
    const response = await get(url)
    expect(response.statusCode, url).toBe(200)
    const png = await loadImage(response.rawPayload)
    return [png.width, png.height]
  }

  it('reads width, height and size as atlas-server does: defaults, parseInt, clamping', async () => {
    expect(await size('/v2/map.png')).toEqual([1024, 1024])
    expect(await size('/v2/map.png?width=50&height=abc&size=999')).toEqual([100, 1024])
    expect(await size('/v2/map.png?width=300px&height=200.9')).toEqual([300, 200])
    expect(await size('/v2/parcels/10/-10/map.png?width=200&height=150')).toEqual([200, 150])
    // size is clamped to 5, 4096² to the pixel budget, 2048²: 412 × 412 parcels, the client's doing (a 4xx)
    const tooMany = await get('/v2/map.png?width=4096&height=4096&size=1')
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json()).toMatchObject({
      ok: false,
      code: 'too_many_parcels',
      error: 'Too many parcels. You are trying to render 169744 parcels and the maximum allowed is 15000.',
      data: { parcels: 169_744, max: 15_000 },
    })
  }, 60_000)

  it('fits width × height to the pixel budget (2048²), the parcel size kept: never a 5xx for a big number', async () => {
    expect(await size('/v2/map.png?width=99999&height=99999')).toEqual([2048, 2048])
    expect(await size('/v2/map.png?width=99999&height=1024')).toEqual([4096, 1024])
    expect(await size('/v2/map.png?width=4096&height=2048&size=50')).toEqual([2896, 1448])
    expect(await size('/v2/parcels/0/0/map.png?width=99999&height=3000&size=40')).toEqual([2393, 1752])
    // the same picture as asking for the fitted size: one cache entry, one ETag
    const big = await get('/v2/map.png?width=99999&height=99999&center=3,4')
    const fitted = await get('/v2/map.png?width=2048&height=2048&center=3,4')
    expect(big.headers.etag).toBe(fitted.headers.etag)
    expect(big.rawPayload.equals(fitted.rawPayload)).toBe(true)
    const over = await get('/v2/map.png?width=99999&height=99999&size=5')
    expect(over.statusCode).toBe(400)
    expect(over.json()).toMatchObject({ code: 'too_many_parcels', data: { max: 15_000 } })
  }, 60_000)

  it('highlights listings only with on-sale=true, and answers 304 to its validators', async () => {
    const plain = await get('/v2/map.png?width=300&height=300&center=-40,96')
    const onSale = await get('/v2/map.png?width=300&height=300&center=-40,96&on-sale=true')
    const notTrue = await get('/v2/map.png?width=300&height=300&center=-40,96&on-sale=yes')
    expect(onSale.rawPayload.equals(plain.rawPayload)).toBe(false)
    expect(notTrue.rawPayload.equals(plain.rawPayload)).toBe(true)
    const etag = plain.headers.etag as string
    const again = await get('/v2/map.png?width=300&height=300&center=-40,96', { 'if-none-match': etag })
    expect(again.statusCode).toBe(304)
    const since = await get('/v2/map.png?width=300&height=300&center=-40,96', {
      'if-modified-since': plain.headers['last-modified'] as string,
    })
    expect(since.statusCode).toBe(304)
  }, 60_000)
})

describe('districts and contributions', () => {
  it('are the same data as the unversioned routes', async () => {
    const v2 = await get('/v2/districts')
    expect(v2.json()).toEqual((await get('/districts')).json())
    expect((await get('/v2/districts', { 'if-none-match': v2.headers.etag as string })).statusCode).toBe(304)
    const [row] = await land.db.sql<Array<{ address: string }>>`select address from contributions limit 1`
    const address = row!.address
    const mixed = `0x${address.slice(2).toUpperCase()}`
    const contributions = await get(`/v2/addresses/${mixed}/contributions`)
    expect(contributions.json()).toEqual((await get(`/addresses/${address}/contributions`)).json())
    expect(contributions.json().data.length).toBeGreaterThan(0)
    const etag = contributions.headers.etag as string
    expect((await get(`/v2/addresses/${address}/contributions`, { 'if-none-match': etag })).statusCode).toBe(
      304,
    )
    expect((await get('/v2/addresses/nope/contributions')).statusCode).toBe(400)
  })
})
