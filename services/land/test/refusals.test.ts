import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Land, startLand } from './helpers.js'

// Validation happens before any data is read, so an empty (migrated, unseeded) database is enough.
let land: Land
beforeAll(async () => {
  land = await startLand({ seeded: false })
})
afterAll(async () => {
  await land?.close()
})

const ADDRESS = '0x004398361d0fad60d7fcf5533d94398ee9fc8ddc'

/** [url, the parameter the answer must name, the value it must quote] */
const badRequests: Array<[string, string, string]> = [
  ['/parcels/151/0', 'x', '151'],
  ['/parcels/0/-151', 'y', '-151'],
  ['/parcels/1.5/0', 'x', '1.5'],
  ['/parcels/abc/0', 'x', 'abc'],
  ['/parcels/0/0x10', 'y', '0x10'],
  // above 2^53 a number is not what was sent once parsed: quoted as sent, never rounded
  ['/parcels/9007199254740993/0', 'x', '9007199254740993'],
  ['/parcels/0/-123456789012345678901', 'y', '-123456789012345678901'],
  ['/parcels?offset=9007199254740993', 'offset', '9007199254740993'],
  ['/parcels/0/151/publications', 'y', '151'],
  ['/parcels/0/0/publications?status=expired', 'status', 'expired'],
  ['/parcels?limit=0', 'limit', '0'],
  ['/parcels?limit=101', 'limit', '101'],
  ['/parcels?limit=ten', 'limit', 'ten'],
  ['/parcels?limit=0x10', 'limit', '0x10'],
  ['/parcels?offset=1e3', 'offset', '1e3'],
  ['/parcels?offset=20000000', 'offset', '20000000'],
  ['/parcels?offset=-1', 'offset', '-1'],
  ['/parcels?offset=1.5', 'offset', '1.5'],
  ['/parcels?status=for_sale', 'status', 'for_sale'],
  ['/parcels?sort_by=name', 'sort_by', 'name'],
  ['/parcels?sort_order=up', 'sort_order', 'up'],
  ['/estates?limit=1000', 'limit', '1000'],
  ['/estates?offset=-5', 'offset', '-5'],
  ['/estates?status=open,sold', 'status', 'open,sold'],
  ['/estates?sort_by=size', 'sort_by', 'size'],
  ['/estates?sort_order=DESC', 'sort_order', 'DESC'],
  ['/addresses/0x1234/parcels', 'address', '0x1234'],
  ['/addresses/not-an-address/estates', 'address', 'not-an-address'],
  [
    '/addresses/0xg04398361d0fad60d7fcf5533d94398ee9fc8ddc/contributions',
    'address',
    '0xg04398361d0fad60d7fcf5533d94398ee9fc8ddc',
  ],
  [`/addresses/${ADDRESS}/parcels?limit=0`, 'limit', '0'],
  [`/addresses/${ADDRESS}/estates?offset=-1`, 'offset', '-1'],
  ['/map?nw=1,2,3&se=0,0', 'nw', '1,2,3'],
  ['/map?nw=0,0&se=a,b', 'se', 'a,b'],
  ['/map?nw=151,0&se=0,0', 'nw', '151,0'],
  ['/map?nw=0,0&se=0,-999', 'se', '0,-999'],
  ['/publications/0x1234', 'txHash', '0x1234'],
  [`/publications/0x${'z'.repeat(64)}`, 'txHash', `0x${'z'.repeat(64)}`],
  ['/translations/e', 'locale', 'e'],
  ['/translations/en--US', 'locale', 'en--US'],
]

describe('every bad parameter is a 400 that names it and quotes the value', () => {
  it.each(badRequests)('%s', async (url, parameter, value) => {
    for (const prefix of ['', '/v1']) {
      const response = await land.app.inject({ method: 'GET', url: `${prefix}${url}` })
      expect(response.statusCode).toBe(400)
      const body = response.json()
      expect(body).toMatchObject({ ok: false, code: 'bad_request' })
      expect(body.error).toContain(parameter)
      expect(body.error).toContain(value)
      expect(body.data).toMatchObject({ parameter, value: expect.anything() })
    }
  })

  it('names each missing /map corner', async () => {
    for (const [url, missing] of [
      ['/map', 'nw'],
      ['/map?nw=0,0', 'se'],
      ['/map?se=0,0', 'nw'],
    ] as const) {
      const response = await land.app.inject({ method: 'GET', url })
      expect(response.statusCode).toBe(400)
      const body = response.json()
      expect(body.error).toContain(missing)
      expect(body.data.errors).toContainEqual({
        path: `query.${missing}`,
        message: 'is required',
        value: null,
      })
    }
  })

  it('lists every bad parameter of one request', async () => {
    const response = await land.app.inject({ method: 'GET', url: '/parcels?limit=0&offset=-1&status=x' })
    const paths = (response.json().data.errors as Array<{ path: string }>).map((e) => e.path).sort()
    expect(paths).toEqual(['query.limit', 'query.offset', 'query.status'])
  })
})

describe('not found', () => {
  it('answers 404 in the envelope for an unknown publication, locale or route', async () => {
    for (const url of [
      `/publications/0x${'a'.repeat(64)}`,
      '/translations/de',
      '/translations/pt-BR',
      '/parcels/0/0/nope',
    ]) {
      const response = await land.app.inject({ method: 'GET', url })
      expect(response.statusCode).toBe(404)
      expect(response.json()).toMatchObject({ ok: false, code: 'not_found' })
    }
  })
})

describe('URL-level failures answer in the envelope with our codes', () => {
  it.each([
    ['/v1/publications/%c0%ae%c0%ae%c0%af', 400, 'bad_request'],
    ['/parcels/%zz/0', 400, 'bad_request'],
    [`/v1/publications/${'a'.repeat(10_000)}`, 414, 'uri_too_long'],
  ])('%s', async (url, status, code) => {
    const response = await land.app.inject({ method: 'GET', url })
    expect(response.statusCode).toBe(status)
    expect(response.json()).toMatchObject({ ok: false, code, error: expect.any(String) })
  })
})

describe('odd input never reaches a 500', () => {
  it.each([
    '/parcels/%00/0',
    '/parcels/0/%F0%9F%98%80',
    '/map?nw=%20&se=0,0',
    '/map?nw=0,0&nw=1,1&se=0,0',
    '/parcels?limit=20&limit=30',
    '/parcels?offset=99999999999999999999',
    '/addresses/%27%3B--/parcels',
    '/translations/%E4%B8%AD',
  ])('%s', async (url) => {
    const response = await land.app.inject({ method: 'GET', url })
    expect(response.statusCode).toBeGreaterThanOrEqual(400)
    expect(response.statusCode).toBeLessThan(500)
    expect(response.json()).toMatchObject({ ok: false })
  })
})

it('accepts the boundary values', async () => {
  for (const url of [
    '/parcels/-150/150',
    '/parcels/150/-150',
    '/parcels?limit=1&offset=0',
    '/parcels?limit=100',
    '/estates?status=sold&sort_by=block_time_updated_at&sort_order=asc',
    `/addresses/${ADDRESS.toUpperCase().replace('0X', '0x')}/parcels?limit=100&offset=0`,
    '/map?nw=-150,150&se=-150,150',
  ]) {
    const response = await land.app.inject({ method: 'GET', url })
    expect(response.statusCode, url).toBe(200)
  }
})
