import type { TestDatabase } from '@genesis/common/testing'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { Parcel } from '@genesis/wire/land'
import { parseEther } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GRID_MAX, GRID_MIN } from '../../src/domain/geometry.js'
import { GridIndex } from '../../src/grid/grid-index.js'
import { WHOLE_GRID } from '../../src/grid/view.js'
import {
  chainEnv,
  cursorBlock,
  freshDatabase,
  type Replica,
  startReplica,
  startWorld,
  tokenId,
  type World,
  within,
} from './helpers.js'

const skip = chainTestsSkipReason()
const MARKER_CHANNEL = 'land_test_marker'

/**
 * The index a replica keeps by patching each batch's rows must answer exactly as an index built afresh
 * from the same database: every parcel's bytes, the whole /map, the districts, the estates, the versions.
 */
describe.skipIf(skip)('the grid follows the indexer’s batches', () => {
  let w: World
  let db: TestDatabase
  let r: Replica
  let a: string
  let b: string
  let c: string
  /** Full builds of the replica's grid once the first sync is in: none may follow. */
  let fullAfterSync = 0

  const head = async () => (await w.provider.getBlock('latest'))!.number
  const now = async () => (await w.provider.getBlock('latest'))!.timestamp

  /**
   * Waits until the indexer has the chain's head, every notification up to its last batch has reached the
   * replica's listener (a marker sent after it on the same connection has), and the grid has read them.
   */
  async function settled(): Promise<void> {
    const target = await head()
    await within(20_000, async () => ((await cursorBlock(r.sql)) ?? -1) >= target, `indexed up to ${target}`)
    const marker = `marker ${Math.random()}`
    let seen = false
    const { unlisten } = await r.sql.listen(MARKER_CHANNEL, (payload) => {
      if (payload === marker) seen = true
    })
    try {
      await r.sql`select pg_notify(${MARKER_CHANNEL}, ${marker})`
      await within(10_000, () => seen, 'marker delivered')
    } finally {
      await unlisten()
    }
    await r.grid.idle()
  }

  /** Asserts the replica's current view answers as a fresh build does, byte for byte. */
  async function expectSameAsFresh(): Promise<void> {
    const view = r.grid.current()
    const fresh = new GridIndex(r.sql)
    await fresh.start()
    try {
      const other = fresh.current()
      expect(view.version).toBe(other.version)
      expect(Buffer.from(view.kind).equals(Buffer.from(other.kind))).toBe(true)
      expect(Buffer.from(view.group.buffer).equals(Buffer.from(other.group.buffer))).toBe(true)
      expect(Buffer.from(view.onSale).equals(Buffer.from(other.onSale))).toBe(true)
      expect(view.validUntil).toBe(other.validUntil)
      const differing: string[] = []
      for (let y = GRID_MIN; y <= GRID_MAX; y++)
        for (let x = GRID_MIN; x <= GRID_MAX; x++)
          if (!view.parcelEnvelope(x, y).equals(other.parcelEnvelope(x, y))) differing.push(`${x},${y}`)
      expect(differing).toEqual([])
      expect(
        (await view.mapBody(WHOLE_GRID)).toBuffer().equals((await other.mapBody(WHOLE_GRID)).toBuffer()),
      ).toBe(true)
      expect(view.districts().toBuffer().equals(other.districts().toBuffer())).toBe(true)
      const ids = [...view.data.estates.keys()].sort()
      expect(ids).toEqual([...other.data.estates.keys()].sort())
      for (const id of ids) expect(view.estateJson(id), id).toBe(other.estateJson(id))
    } finally {
      await fresh.close()
    }
  }

  /** Runs a step on the chain, then checks it was patched in (no full build) and answers as a fresh build. */
  async function step(what: string, work: () => Promise<unknown>): Promise<void> {
    const patches = r.grid.refreshes.delta
    await work()
    await settled()
    expect(r.grid.refreshes.delta, `${what}: patched`).toBeGreaterThan(patches)
    expect(r.grid.refreshes.full, `${what}: no full build`).toBe(fullAfterSync)
    const view = r.grid.current()
    expect(view.prewarmed, `${what}: answers serialised`).toBe(true)
    // the answers were carried over, a handful serialised anew
    expect(view.reserialised, `${what}: answers carried over`).toBeLessThan(50)
    await expectSameAsFresh()
  }

  const parcel = async (x: number, y: number) => (await r.get<Parcel>(`/parcels/${x}/${y}`)).body.data

  beforeAll(async () => {
    w = await startWorld()
    a = w.alice.address.toLowerCase()
    b = w.bob.address.toLowerCase()
    c = w.carol.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [10, 11, 12, 13, 14, 15, 16, 17], Array(8).fill(40), a)
    await w.send(w.land, 'assignMultipleParcels', [20, 21], [40, 40], b)
    await w.send(w.as(w.land, w.bob), 'setApprovalForAll', w.d.marketplace, true)
    await w.send(w.as(w.land, w.alice), 'setApprovalForAll', w.d.marketplace, true)
    await w.send(w.as(w.estates, w.alice), 'setApprovalForAll', w.d.marketplace, true)
    await w.send(w.mana, 'mint', a, parseEther('10000'))
    await w.send(w.as(w.mana, w.alice), 'approve', w.d.marketplace, parseEther('10000'))
    db = await freshDatabase()
    // prewarm on: the carried-over answers are what the parcel reads serve
    r = await startReplica(db.url, chainEnv(w.d, w.anvil.url, { LAND_PREWARM: 'true' }))
    await settled()
    await within(60_000, () => r.grid.current().prewarmed, 'first prewarm')
    fullAfterSync = r.grid.refreshes.full
  }, 120_000)
  afterAll(async () => {
    await r?.close()
    await db?.drop()
    await w?.close()
  })

  it('after the first sync', async () => {
    expect(r.grid.refreshes.full).toBeGreaterThanOrEqual(1)
    expect((await parcel(17, 40)).owner).toBe(a)
    await expectSameAsFresh()
  }, 60_000)

  it('transfers, data updates, estates, orders: each batch patched in, equal to a fresh build', async () => {
    await step('transfer', () => w.send(w.as(w.land, w.alice), 'transferLand', 10, 40, b))
    expect((await parcel(10, 40)).owner).toBe(b)
    await step('update', () =>
      w.send(w.as(w.land, w.alice), 'updateLandData', 11, 40, '0,Corner,By the road,'),
    )
    expect((await parcel(11, 40)).data.name).toBe('Corner')

    const estates = w.as(w.estates, w.alice)
    await step('estate created', () =>
      w.send(estates, 'createEstate', [12, 13], [40, 40], a, '0,Alice Gardens,Two parcels'),
    )
    expect((await parcel(13, 40)).estate_id).toBe('1')
    await step('estate grown', () => w.send(estates, 'addLand', 1, [14], [40]))
    await step('estate shrunk', () => w.send(estates, 'removeLand', 1, tokenId(12, 40), b))
    expect((await parcel(12, 40)).owner).toBe(b)
    await step('estate renamed', () => w.send(estates, 'updateMetadata', 1, '0,Alice Meadows,'))

    const expires = (await now()) + 86_400
    await step('estate listed', () =>
      w.send(w.as(w.market, w.alice), 'createOrder', w.d.estateRegistry, 1, parseEther('7'), expires),
    )
    expect([...r.grid.current().onSale.slice(0)].reduce((n, v) => n + v, 0)).toBe(2)

    const market = w.as(w.market, w.bob)
    const price = parseEther('12.5')
    await step('parcel listed', () =>
      w.send(market, 'createOrder', w.d.landRegistry, tokenId(20, 40), price, expires),
    )
    expect((await parcel(20, 40)).publication?.price).toBe(12.5)
    await step('order cancelled', () => w.send(market, 'cancelOrder', w.d.landRegistry, tokenId(20, 40)))
    expect((await parcel(20, 40)).publication).toBeNull()
    await step('listed again', () =>
      w.send(market, 'createOrder', w.d.landRegistry, tokenId(20, 40), price, expires),
    )
    await step('order executed', () =>
      w.send(w.as(w.market, w.alice), 'executeOrder', w.d.landRegistry, tokenId(20, 40), price),
    )
    expect((await parcel(20, 40)).owner).toBe(a)
    expect((await parcel(20, 40)).publication).toBeNull()

    await step('estate transferred', () => w.send(estates, 'transferFrom', a, c, 1))
    expect((await parcel(14, 40)).owner).toBe(c)
  }, 300_000)

  it('a reorganisation is undone by a patch too', async () => {
    const snapshot = await w.provider.send('evm_snapshot', [])
    const expires = (await now()) + 86_400
    await step('doomed branch', async () => {
      await w.send(w.as(w.land, w.alice), 'transferLand', 15, 40, b)
      await w.send(w.as(w.market, w.alice), 'createOrder', w.d.landRegistry, tokenId(16, 40), 1n, expires)
      await w.send(w.as(w.estates, w.carol), 'transferFrom', c, a, 1)
      await w.send(w.as(w.estates, w.alice), 'createEstate', [11], [40], a, '0,Short lived,')
    })
    expect((await parcel(15, 40)).owner).toBe(b)
    expect((await parcel(16, 40)).publication).not.toBeNull()
    expect((await parcel(13, 40)).owner).toBe(a)
    expect((await parcel(11, 40)).estate_id).toBe('2')

    await step('the other branch', async () => {
      await w.provider.send('evm_revert', [snapshot])
      await w.send(w.as(w.land, w.alice), 'transferLand', 17, 40, c)
      for (let i = 0; i < 3; i++) await w.provider.send('evm_mine', [])
      await within(20_000, async () => (await parcel(17, 40)).owner === c, 'new branch indexed')
    })
    expect((await parcel(15, 40)).owner).toBe(a)
    expect((await parcel(16, 40)).publication).toBeNull()
    expect((await parcel(13, 40)).owner).toBe(c)
    expect((await parcel(11, 40)).estate_id).toBeNull()
    expect(r.grid.current().data.estates.has('2')).toBe(false)
    const metrics = (await r.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/land_indexer_reorgs_total\{[^}]*\} 1/)
  }, 180_000)

  it('an estate of 2,000 parcels changes hands: patched in (the change sent in parts), equal to a fresh build', async () => {
    const cells: Array<[number, number]> = []
    for (let y = 60; cells.length < 2000; y++)
      for (let x = -150; x <= 150 && cells.length < 2000; x++) cells.push([x, y])
    const xs = (part: typeof cells) => part.map(([x]) => x)
    const ys = (part: typeof cells) => part.map(([, y]) => y)
    const parts = <T>(items: T[], size: number) =>
      Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
    for (const part of parts(cells, 400)) await w.send(w.land, 'assignMultipleParcels', xs(part), ys(part), a)
    const estates = w.as(w.estates, w.alice)
    const [first, ...rest] = parts(cells, 100)
    await w.send(estates, 'createEstate', xs(first!), ys(first!), a, '0,Big Estate,')
    const id = Number(await w.estates.getFunction('lastEstateId')())
    for (const part of rest) await w.send(estates, 'addLand', id, xs(part), ys(part))
    await settled()
    expect((await parcel(cells[1999]![0], cells[1999]![1])).estate_id).toBe(String(id))
    const full = r.grid.refreshes.full
    const patches = r.grid.refreshes.delta

    await w.send(estates, 'transferFrom', a, b, id)
    await settled()
    expect(r.grid.refreshes.full, 'no full build').toBe(full)
    expect(r.grid.refreshes.delta).toBeGreaterThan(patches)
    for (const [x, y] of [cells[0]!, cells[1000]!, cells[1999]!]) expect((await parcel(x, y)).owner).toBe(b)
    await expectSameAsFresh()
  }, 300_000)
})
