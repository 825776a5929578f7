import { createCanvas, loadImage } from '@napi-rs/canvas'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLAZA_DISTRICT_ID, ROAD_DISTRICT_ID } from '../src/domain/constants.js'
import { COLORS, tileGap } from '../src/render/draw.js'
import { type Land, startLand } from './helpers.js'

/** The PNG routes of the real service (buildApp, grid index) over the seeded Genesis City set. */

interface View {
  width: number
  height: number
  size: number
  center: { x: number; y: number }
}

/** Colour at the middle of a parcel's tile, read back from the PNG the service sent. */
async function tileColours(png: Buffer, view: View) {
  const image = await loadImage(png)
  expect([image.width, image.height]).toEqual([view.width, view.height])
  const canvas = createCanvas(image.width, image.height)
  const ctx = canvas.getContext('2d')
  ctx.drawImage(image, 0, 0)
  const { data } = ctx.getImageData(0, 0, image.width, image.height)
  const gap = tileGap(view.size)
  const inner = Math.floor((view.size - gap) / 2)
  return (x: number, y: number) => {
    const left = Math.floor((view.width - view.size) / 2) + (x - view.center.x) * view.size
    const top = Math.floor((view.height - view.size) / 2) + (view.center.y - y) * view.size
    const o = ((top + gap + inner) * image.width + left + inner) * 4
    return `#${[data[o]!, data[o + 1]!, data[o + 2]!].map((v) => v.toString(16).padStart(2, '0')).join('')}`
  }
}

const hex = (c: string) => c.toLowerCase()
const CITY_CENTRE: View = { width: 2048, height: 2048, size: 17, center: { x: 0, y: 0 } }
// 122 × 122 parcels around 0,0: x and y from -61 to 60; stay well inside the image.
const NEAR = 55

let land: Land

beforeAll(async () => {
  land = await startLand()
})

afterAll(async () => {
  await land?.close()
})

const get = (url: string, headers: Record<string, string> = {}) =>
  land.app.inject({ method: 'GET', url, headers })

type Cell = { x: number; y: number }

async function oneParcel(where: string): Promise<Cell> {
  const rows = await land.db.sql.unsafe<Cell[]>(
    `select p.x, p.y from parcels p where p.x between -${NEAR} and ${NEAR} and p.y between -${NEAR} and ${NEAR}
       and ${where} order by p.x, p.y limit 1`,
  )
  expect(rows.length).toBe(1)
  return rows[0]!
}

const OPEN_NOW = `status = 'open' and expires_at > (extract(epoch from now()) * 1000)::bigint`
const NOT_ON_SALE = `not exists (select 1 from publications pub where ${OPEN_NOW}
    and ((pub.type = 'parcel' and pub.asset_id = p.x || ',' || p.y) or (pub.type = 'estate' and pub.asset_id = p.estate_id)))`

describe('PNG maps of the seeded Genesis City', () => {
  it('draws the largest city-centre view in the colours of the data', async () => {
    const res = await get('/map.png?width=2048&height=2048&size=17&publications=true')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/png')
    const colourAt = await tileColours(res.rawPayload, CITY_CENTRE)

    const road = await oneParcel(`p.district_id = '${ROAD_DISTRICT_ID}'`)
    const plaza = await oneParcel(`p.district_id = '${PLAZA_DISTRICT_ID}'`)
    const district = await oneParcel(
      `p.district_id is not null and p.district_id not in ('${ROAD_DISTRICT_ID}', '${PLAZA_DISTRICT_ID}')`,
    )
    const unowned = await oneParcel('p.owner is null and p.estate_id is null and p.district_id is null')
    const owned = await oneParcel(
      `p.owner is not null and p.estate_id is null and p.district_id is null and ${NOT_ON_SALE}`,
    )
    const inEstate = await oneParcel(`p.estate_id is not null and p.district_id is null and ${NOT_ON_SALE}`)
    const onSale = await oneParcel(
      `p.district_id is null and exists (select 1 from publications pub where ${OPEN_NOW}
         and pub.type = 'parcel' and pub.asset_id = p.x || ',' || p.y)`,
    )

    expect(colourAt(road.x, road.y)).toBe(hex(COLORS.road))
    expect(colourAt(plaza.x, plaza.y)).toBe(hex(COLORS.plaza))
    expect(colourAt(district.x, district.y)).toBe(hex(COLORS.district))
    expect(colourAt(unowned.x, unowned.y)).toBe(hex(COLORS.unowned))
    expect(colourAt(owned.x, owned.y)).toBe(hex(COLORS.owned))
    expect(colourAt(inEstate.x, inEstate.y)).toBe(hex(COLORS.owned))
    expect(colourAt(onSale.x, onSale.y)).toBe(hex(COLORS.onSale))

    const withoutSales = await get('/map.png?width=2048&height=2048&size=17')
    expect((await tileColours(withoutSales.rawPayload, CITY_CENTRE))(onSale.x, onSale.y)).toBe(
      hex(COLORS.owned),
    )
  })

  it('centres an estate image on its median parcel and draws every parcel of the estate selected', async () => {
    const [estate] = await land.db.sql<Array<{ id: string; n: number }>>`
      select estate_id as id, count(*)::int as n from parcels where estate_id is not null
      group by estate_id having count(*) between 6 and 40 order by count(*) desc, estate_id limit 1`
    expect(estate).toBeDefined()
    const parcels = await land.db.sql<Cell[]>`select x, y from parcels where estate_id = ${estate!.id}`
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    const view: View = {
      width: 600,
      height: 600,
      size: 12,
      center: { x: median(parcels.map((p) => p.x)), y: median(parcels.map((p) => p.y)) },
    }
    const res = await get(`/estates/${estate!.id}/map.png?width=600&height=600&size=12&publications=true`)
    expect(res.statusCode).toBe(200)
    const colourAt = await tileColours(res.rawPayload, view)
    for (const p of parcels) expect(colourAt(p.x, p.y)).toBe(hex(COLORS.selected))

    const same = await get(
      `/map.png?width=600&height=600&size=12&publications=true&center=${view.center.x},${view.center.y}` +
        `&selected=${parcels.map((p) => `${p.x},${p.y}`).join(';')}`,
    )
    expect(same.rawPayload.equals(res.rawPayload)).toBe(true)
    expect((await get('/estates/no-such-estate/map.png')).statusCode).toBe(404)
  })

  it('answers 304 while the data is unchanged and a new image once it changes', async () => {
    const url = '/v1/map.png?width=300&height=300&size=20&center=40,40'
    const first = await get(url)
    expect(first.statusCode).toBe(200)
    const etag = first.headers.etag as string
    expect((await get(url, { 'if-none-match': etag })).statusCode).toBe(304)
    expect((await get(url.replace('/v1', ''), { 'if-none-match': etag })).statusCode).toBe(304)

    const target = await oneParcel(
      'p.x between 36 and 44 and p.y between 36 and 44 and p.owner is not null and p.estate_id is null and p.district_id is null',
    )
    await land.db.sql`update parcels set owner = null where x = ${target.x} and y = ${target.y}`
    await land.grid.refresh()
    const changed = await get(url, { 'if-none-match': etag })
    expect(changed.statusCode).toBe(200)
    expect(changed.headers.etag).not.toBe(etag)
    const colourAt = await tileColours(changed.rawPayload, {
      width: 300,
      height: 300,
      size: 20,
      center: { x: 40, y: 40 },
    })
    expect(colourAt(target.x, target.y)).toBe(hex(COLORS.unowned))
  })
})
