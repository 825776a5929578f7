import { requireRealPostgres } from '@genesis/common/testing'
import { useTestDatabase } from '@genesis/common/testing/vitest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  FULL_REBUILD_PAYLOAD,
  LAND_CHANGED_CHANNEL,
  LandChanges,
  parseLandDelta,
} from '../src/db/land-changes.js'
import { cellIndex } from '../src/domain/geometry.js'
import { TILE_OWNED, TILE_UNOWNED } from '../src/domain/tiles.js'
import { GridIndex } from '../src/grid/grid-index.js'
import { migrationsDir } from '../src/paths.js'
import { eventually } from './helpers.js'

const db = useTestDatabase({ migrationsDir })
/** Every land_changed payload delivered to a listener of our own, in order, with the markers. */
const received: string[] = []
/** A channel of the test's own: a marker on land_changed would itself ask the grid for a rebuild. */
const MARKER_CHANNEL = 'land_test_marker'
const unlisten: Array<() => Promise<void>> = []

beforeAll(async () => {
  if (!db.embedded) {
    // one listening connection for both channels: delivered in commit order
    for (const channel of [LAND_CHANGED_CHANNEL, MARKER_CHANNEL]) {
      const listening = await db.sql.listen(channel, (payload) => {
        received.push(payload)
      })
      unlisten.push(listening.unlisten)
    }
  }
})
afterAll(async () => {
  for (const stop of unlisten) await stop()
})

/**
 * Writes a marker notification after `work` and waits for it: every notification of `work` (committed
 * before the marker) has then been delivered, in commit order. Returns those.
 */
async function notifiedBy(work: () => Promise<unknown>): Promise<string[]> {
  const start = received.length
  await work()
  const marker = `marker ${Math.random()}`
  await db.sql`select pg_notify(${MARKER_CHANNEL}, ${marker})`
  await eventually(() => received.includes(marker))
  return received.slice(start, received.indexOf(marker))
}

const owner = (n: number) => `0x${String(n).repeat(40)}`

describe('land_changed notifications', () => {
  it('a plain write names its table, as before', async (ctx) => {
    requireRealPostgres(ctx, db)
    expect(
      await notifiedBy(() => db.sql`update parcels set owner = ${owner(1)} where x = 0 and y = 0`),
    ).toEqual(['parcels'])
  })

  it('a transaction with land.delta on sends only its own payload, at commit', async (ctx) => {
    requireRealPostgres(ctx, db)
    const changes = new LandChanges()
    const payloads = await notifiedBy(() =>
      db.sql.begin(async (tx) => {
        await changes.begin(tx)
        await tx`update parcels set owner = ${owner(2)} where x = 1 and y = 0`
        changes.parcel(1, 0)
        await tx`insert into estates (id, owner) values ('77', ${owner(2)})`
        changes.estate('77')
        await tx`update parcels set estate_id = '77' where x = 2 and y = 0`
        changes.parcel(2, 0)
        await changes.notify(tx)
      }),
    )
    expect(payloads).toHaveLength(1)
    expect(parseLandDelta(payloads[0]!)).toEqual({
      delta: { parcels: ['1,0', '2,0'], estates: ['77'], assets: [] },
    })
  })

  it('the setting ends with its transaction: the same session’s next plain write names its table', async (ctx) => {
    requireRealPostgres(ctx, db)
    const conn = await db.sql.reserve()
    try {
      const payloads = await notifiedBy(async () => {
        await conn`begin`
        const changes = new LandChanges()
        await changes.begin(conn)
        await conn`update parcels set name = 'in a delta' where x = 3 and y = 0`
        changes.parcel(3, 0)
        await changes.notify(conn)
        await conn`commit`
        await conn`update parcels set name = 'plain' where x = 3 and y = 0`
      })
      expect(payloads.map((p) => parseLandDelta(p)?.delta.parcels ?? p)).toEqual([['3,0'], 'parcels'])
    } finally {
      conn.release()
    }
  })

  it('a rolled-back transaction sends nothing', async (ctx) => {
    requireRealPostgres(ctx, db)
    const payloads = await notifiedBy(() =>
      db.sql
        .begin(async (tx) => {
          const changes = new LandChanges()
          await changes.begin(tx)
          await tx`update parcels set name = 'never' where x = 4 and y = 0`
          changes.parcel(4, 0)
          await changes.notify(tx)
          throw new Error('abort')
        })
        .catch(() => {}),
    )
    expect(payloads).toEqual([])
  })

  it('too many rows for one payload: parts that each fit, one token; past a patch’s worth, a full build', () => {
    const changes = new LandChanges()
    for (let x = -150; x <= 150; x++) for (let y = -150; y < -143; y++) changes.parcel(x, y)
    changes.estate('12')
    changes.publication('parcel', '0,0')
    const payloads = changes.payloads()
    expect(payloads.length).toBeGreaterThan(1)
    const parsed = payloads.map((p) => {
      expect(Buffer.byteLength(p)).toBeLessThan(8000)
      return parseLandDelta(p)!
    })
    expect(new Set(parsed.map((p) => p.part!.token)).size).toBe(1)
    expect(parsed.map((p) => [p.part!.index, p.part!.count])).toEqual(
      payloads.map((_, i) => [i, payloads.length]),
    )
    expect({
      parcels: parsed.flatMap((p) => p.delta.parcels),
      estates: parsed.flatMap((p) => p.delta.estates),
      assets: parsed.flatMap((p) => p.delta.assets),
    }).toEqual(changes.delta())

    const huge = new LandChanges()
    for (let x = -150; x <= 150; x++) for (let y = -150; y < -80; y++) huge.parcel(x, y)
    expect(huge.payloads()).toEqual([FULL_REBUILD_PAYLOAD])
    expect(parseLandDelta(FULL_REBUILD_PAYLOAD)).toBeNull()
    const small = new LandChanges()
    small.parcel(-150, 150)
    small.publication('estate', '9')
    expect(small.payloads().map(parseLandDelta)).toEqual([
      { delta: { parcels: ['-150,150'], estates: [], assets: ['estate:9'] } },
    ])
    expect(new LandChanges().payloads()).toEqual([])
  })

  it('refuses payloads that are not a delta of grid cells', () => {
    for (const payload of [
      'parcels',
      '{',
      '[]',
      '{"parcels":["1,2"],"estates":[]}',
      '{"parcels":["151,0"],"estates":[],"assets":[]}',
      '{"parcels":[[1,2]],"estates":[],"assets":[]}',
      '{"parcels":[],"estates":[],"assets":["house:1"]}',
      '{"part":"ab:2:2","parcels":[],"estates":[],"assets":[]}',
      '{"part":"ab:0","parcels":[],"estates":[],"assets":[]}',
      '{"part":7,"parcels":[],"estates":[],"assets":[]}',
    ]) {
      expect(parseLandDelta(payload), payload).toBeNull()
    }
  })
})

describe('the grid index follows the notifications', () => {
  let grid: GridIndex
  beforeAll(async () => {
    grid = new GridIndex(db.sql, { debounceMs: 10 })
    if (!db.embedded) await grid.listen()
    await grid.start()
  })
  afterAll(async () => {
    await grid?.close()
  })

  /** The index after `work`, and how many full builds and patches it took. */
  async function refreshesFor(work: () => Promise<unknown>) {
    const before = { ...grid.refreshes }
    await notifiedBy(work)
    await grid.idle()
    return { full: grid.refreshes.full - before.full, delta: grid.refreshes.delta - before.delta }
  }

  it('a manual update rebuilds the whole grid', async (ctx) => {
    requireRealPostgres(ctx, db)
    const counts = await refreshesFor(
      () => db.sql`update parcels set owner = ${owner(5)} where x = 5 and y = 5`,
    )
    expect(counts).toEqual({ full: 1, delta: 0 })
    expect(grid.current().data.cells[cellIndex(5, 5)]?.owner).toBe(owner(5))
  })

  it('a delta transaction patches the named rows, and only those are re-read', async (ctx) => {
    requireRealPostgres(ctx, db)
    const counts = await refreshesFor(() =>
      db.sql.begin(async (tx) => {
        const changes = new LandChanges()
        await changes.begin(tx)
        // the second row changes in the database but the payload leaves it out: the patch must not see it
        await tx`update parcels set owner = ${owner(6)} where (x, y) in ((6, 5), (7, 5))`
        changes.parcel(6, 5)
        await changes.notify(tx)
      }),
    )
    expect(counts).toEqual({ full: 0, delta: 1 })
    const view = grid.current()
    expect(view.data.cells[cellIndex(6, 5)]?.owner).toBe(owner(6))
    expect(view.kind[cellIndex(6, 5)]).toBe(TILE_OWNED)
    expect(view.data.cells[cellIndex(7, 5)]?.owner).toBeNull()
    expect(view.kind[cellIndex(7, 5)]).toBe(TILE_UNOWNED)
  })

  it('a delta sent in parts is patched once it is whole, as one patch', async (ctx) => {
    requireRealPostgres(ctx, db)
    const cells: Array<[number, number]> = []
    for (let x = -150; x <= 150; x++) for (let y = 100; y < 107; y++) cells.push([x, y])
    let parts = 0
    const counts = await refreshesFor(() =>
      db.sql.begin(async (tx) => {
        const changes = new LandChanges()
        await changes.begin(tx)
        await tx`update parcels set owner = ${owner(3)} where y >= 100 and y < 107`
        for (const [x, y] of cells) changes.parcel(x, y)
        parts = changes.payloads().length
        await changes.notify(tx)
      }),
    )
    expect(parts).toBeGreaterThan(1)
    expect(counts).toEqual({ full: 0, delta: 1 })
    const view = grid.current()
    expect(cells.every(([x, y]) => view.data.cells[cellIndex(x, y)]?.owner === owner(3))).toBe(true)
  })

  it('a delta committed while a full build runs is applied after it, not lost under the build', async (ctx) => {
    requireRealPostgres(ctx, db)
    // the build's snapshot is usually taken before the delta commits; either way the end state must hold it
    const building = grid.refresh()
    await notifiedBy(() =>
      db.sql.begin(async (tx) => {
        const changes = new LandChanges()
        await changes.begin(tx)
        await tx`update parcels set owner = ${owner(8)} where x = 8 and y = 5`
        changes.parcel(8, 5)
        await changes.notify(tx)
      }),
    )
    await building
    await grid.idle()
    expect(grid.current().data.cells[cellIndex(8, 5)]?.owner).toBe(owner(8))
  })

  it('a delta noticed before the first build makes it a full one', async (ctx) => {
    requireRealPostgres(ctx, db)
    const cold = new GridIndex(db.sql, { debounceMs: 10 })
    try {
      await cold.listen()
      await notifiedBy(() =>
        db.sql.begin(async (tx) => {
          const changes = new LandChanges()
          await changes.begin(tx)
          await tx`update parcels set owner = ${owner(9)} where x = 9 and y = 5`
          changes.parcel(9, 5)
          await changes.notify(tx)
        }),
      )
      await cold.idle()
      expect(cold.refreshes).toEqual({ full: 1, delta: 0 })
      expect(cold.current().data.cells[cellIndex(9, 5)]?.owner).toBe(owner(9))
    } finally {
      await cold.close()
    }
  })

  it('the full-rebuild payload and a garbled one rebuild everything', async (ctx) => {
    requireRealPostgres(ctx, db)
    for (const payload of [FULL_REBUILD_PAYLOAD, '{"parcels":']) {
      const counts = await refreshesFor(() => db.sql`select pg_notify(${LAND_CHANGED_CHANNEL}, ${payload})`)
      expect(counts, payload).toEqual({ full: 1, delta: 0 })
    }
    // the row the last delta left out is read by the full build
    expect(grid.current().data.cells[cellIndex(7, 5)]?.owner).toBe(owner(6))
  })
})
