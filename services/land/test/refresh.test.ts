import { requireRealPostgres } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { cellIndex } from '../src/domain/geometry.js'
import { TILE_OWNED, TILE_UNOWNED } from '../src/domain/tiles.js'
import { GridIndex } from '../src/grid/grid-index.js'
import { eventually, type Land, startLand } from './helpers.js'

let land: Land
beforeAll(async () => {
  land = await startLand({ listen: true, debounceMs: 20 })
})
afterAll(async () => {
  await land?.close()
})

const parcel = async (x: number, y: number) =>
  (await land.app.inject({ method: 'GET', url: `/parcels/${x}/${y}` })).json().data

/** Owned parcels outside districts and estates, with no publication at all: free to change in a test. */
async function quietParcels(
  count: number,
  offset = 0,
): Promise<Array<{ x: number; y: number; owner: string }>> {
  return land.db.sql<Array<{ x: number; y: number; owner: string }>>`
    select x, y, owner from parcels p
    where district_id is null and estate_id is null and owner is not null and x < 149
      and not exists (select 1 from publications where type = 'parcel' and asset_id = p.x || ',' || p.y)
      and exists (select 1 from parcels q where q.x = p.x + 1 and q.y = p.y and q.district_id is null
        and q.estate_id is null and q.owner is not null)
    order by x, y limit ${count} offset ${offset}`
}

describe('readiness', () => {
  it('is 503 (and so are the index routes) until the index is built', async () => {
    const cold = new GridIndex(land.db.sql)
    const app = await buildApp({ sql: land.db.sql, config: loadConfig({}), context: { grid: cold } })
    try {
      const ready = await app.inject({ method: 'GET', url: '/health/ready' })
      expect(ready.statusCode).toBe(503)
      for (const url of ['/parcels/0/0', '/map?nw=0,0&se=1,1', '/districts', '/map.png']) {
        const response = await app.inject({ method: 'GET', url })
        expect(response.statusCode, url).toBe(503)
        expect(response.json()).toMatchObject({ ok: false, code: 'service_unavailable' })
      }
      await cold.start()
      expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200)
      expect((await app.inject({ method: 'GET', url: '/parcels/0/0' })).statusCode).toBe(200)
    } finally {
      await app.close()
      await cold.close()
    }
  })
})

describe('the first view', () => {
  it('is served only once its owner prepared for it, and that only once', async () => {
    const seen: boolean[] = []
    let prepared!: () => void
    const grid: GridIndex = new GridIndex(land.db.sql, {
      beforeFirstView: () => {
        seen.push(grid.ready)
        return new Promise<void>((resolve) => {
          prepared = resolve
        })
      },
    })
    try {
      const started = grid.start()
      await eventually(() => seen.length > 0, 60_000)
      // built, and still not ready while its owner prepares
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(grid.ready).toBe(false)
      prepared()
      await started
      expect(grid.ready).toBe(true)
      await grid.refresh()
      expect(seen).toEqual([false])
    } finally {
      await grid.close()
    }
  })

  it('is served when its preparation fails: the failure is logged', async () => {
    const errors: string[] = []
    const grid = new GridIndex(land.db.sql, {
      beforeFirstView: () => Promise.reject(new Error('no compaction')),
      logger: { info: () => {}, error: (_obj, msg) => errors.push(msg) },
    })
    try {
      await grid.start()
      expect(grid.ready).toBe(true)
      expect(errors).toEqual(['preparing the first land view failed'])
    } finally {
      await grid.close()
    }
  })
})

describe('LISTEN land_changed', () => {
  it('rebuilds the index when another connection changes a parcel', async (ctx) => {
    requireRealPostgres(ctx, land.db)
    const [target] = await quietParcels(1)
    const { x, y, owner } = target!
    const version = land.grid.snapshot().version
    expect(land.grid.snapshot().kind[cellIndex(x, y)]).toBe(TILE_OWNED)
    await land.db.sql`update parcels set owner = null where x = ${x} and y = ${y}`
    await eventually(async () => (await parcel(x, y)).owner === null)
    expect(land.grid.snapshot().kind[cellIndex(x, y)]).toBe(TILE_UNOWNED)
    expect(land.grid.snapshot().version).not.toBe(version)
    await land.db.sql`update parcels set owner = ${owner} where x = ${x} and y = ${y}`
    await eventually(async () => (await parcel(x, y)).owner === owner)
    expect(land.grid.snapshot().version).toBe(version)
  })
})

describe('refresh under load', () => {
  it('swaps atomically: concurrent HTTP readers see a whole state, old or new, never a mix', async () => {
    const base = await land.app.listen({ host: '127.0.0.1', port: 0 })
    const [a] = await quietParcels(1, 3)
    const b = { x: a!.x + 1, y: a!.y }
    const url = `/map?nw=${a!.x},${a!.y}&se=${b.x},${b.y}`
    const owners = Array.from({ length: 4 }, (_, i) => `0x${String(i + 1).repeat(40)}`)
    await land.db
      .sql`update parcels set owner = ${owners[0]!} where (x, y) in ((${a!.x}, ${a!.y}), (${b.x}, ${b.y}))`
    await land.grid.refresh()
    const seen = new Set<string>()
    let writing = true
    const writer = (async () => {
      try {
        for (const owner of owners.slice(1)) {
          // Both parcels change in one statement (one transaction, one notification).
          await land.db
            .sql`update parcels set owner = ${owner} where (x, y) in ((${a!.x}, ${a!.y}), (${b.x}, ${b.y}))`
          await land.grid.refresh()
        }
      } finally {
        writing = false
      }
    })()
    const readOnce = async () => {
      const response = await fetch(`${base}${url}`)
      expect(response.status).toBe(200)
      const body = (await response.json()) as { data: { assets: { parcels: Array<{ owner: string }> } } }
      const [first, second] = body.data.assets.parcels
      expect(first!.owner).toBe(second!.owner)
      seen.add(first!.owner)
      const single = await fetch(`${base}/parcels/${a!.x}/${a!.y}`)
      expect(single.status).toBe(200)
      await single.arrayBuffer()
    }
    const reader = async () => {
      for (let reads = 0; writing && reads < 5000; reads++) await readOnce()
      // Once the last refresh is in, every reader sees the final state.
      await readOnce()
    }
    await Promise.all([writer, reader(), reader(), reader(), reader()])
    // The readers ran across several refreshes.
    expect(seen.size).toBeGreaterThan(1)
    expect(seen.has(owners.at(-1)!)).toBe(true)
  })

  it('shares concurrent refreshes, and a refresh always sees what was committed before it was asked for', async () => {
    const before = land.grid.generation
    await Promise.all(Array.from({ length: 8 }, () => land.grid.refresh()))
    expect(land.grid.generation - before).toBeGreaterThanOrEqual(1)
    expect(land.grid.generation - before).toBeLessThanOrEqual(2)

    const [target] = await quietParcels(1, 7)
    const running = land.grid.refresh()
    await land.db
      .sql`update parcels set name = 'Committed during a build' where x = ${target!.x} and y = ${target!.y}`
    await land.grid.refresh()
    expect((await parcel(target!.x, target!.y)).data.name).toBe('Committed during a build')
    await running
  })
})

describe('publications expire with time alone', () => {
  it('stops showing a publication once it expires, without any write', async (ctx) => {
    requireRealPostgres(ctx, land.db)
    const [target] = await quietParcels(1, 11)
    const { x, y, owner } = target!
    const cell = cellIndex(x, y)
    const before = land.grid.snapshot().version
    // The service's clock stands still while the index refreshes (however long that takes on a busy
    // machine), and the test itself moves it to the expiry: nothing here races the wall clock.
    const now = Date.now()
    vi.useFakeTimers({ toFake: ['Date'], now })
    try {
      const expiresAt = now + 1500
      await land.db.sql`
        insert into publications (tx_hash, owner, price, status, contract_id, block_number, expires_at,
          block_time_created_at, type, asset_id, marketplace_id)
        values (${`0x${'e'.repeat(64)}`}, ${owner}, 1234, 'open', 'land', 1, ${expiresAt}, ${now}, 'parcel',
          ${`${x},${y}`}, 'market')`
      // The refresh that NOTIFY starts.
      await eventually(async () => (await parcel(x, y)).publication !== null)
      expect(land.grid.snapshot().onSale[cell]).toBe(1)
      expect(land.grid.snapshot().version).not.toBe(before)
      const listed = (
        await land.app.inject({ method: 'GET', url: '/parcels?sort_by=expires_at&limit=1' })
      ).json()
      expect(listed.data.parcels[0].id).toBe(`${x},${y}`)

      // The expiry: the clock reaches expires_at, and nothing is written.
      vi.setSystemTime(expiresAt)
      expect((await parcel(x, y)).publication).toBeNull()
      expect(land.grid.snapshot().onSale[cell]).toBe(0)
      expect(land.grid.snapshot().version).toBe(before)
      const after = (
        await land.app.inject({ method: 'GET', url: '/parcels?sort_by=expires_at&limit=1' })
      ).json()
      expect(after.data.parcels[0].id).not.toBe(`${x},${y}`)
    } finally {
      vi.useRealTimers()
    }
  })

  it('puts every parcel of an estate on sale with the estate', async (ctx) => {
    requireRealPostgres(ctx, land.db)
    const [estate] = await land.db.sql<Array<{ id: string; owner: string }>>`
      select e.id, e.owner from estates e
      where not exists (select 1 from publications where type = 'estate' and asset_id = e.id)
      order by length(e.id), e.id limit 1`
    await land.db.sql`
      insert into publications (tx_hash, owner, price, status, contract_id, block_number, expires_at,
        block_time_created_at, type, asset_id, marketplace_id)
      values (${`0x${'f'.repeat(64)}`}, ${estate!.owner}, 99000, 'open', 'estate', 1, ${Date.now() + 86_400_000},
        ${Date.now()}, 'estate', ${estate!.id}, 'market')`
    await eventually(
      () => land.grid.snapshot().onSale[cellIndex(...first(land.grid.estateParcels(estate!.id)))] === 1,
    )
    for (const p of land.grid.estateParcels(estate!.id)!)
      expect(land.grid.snapshot().onSale[cellIndex(p.x, p.y)]).toBe(1)
  })
})

function first(parcels: Array<{ x: number; y: number }> | undefined): [number, number] {
  const p = parcels?.[0]
  if (!p) throw new Error('estate without parcels')
  return [p.x, p.y]
}
