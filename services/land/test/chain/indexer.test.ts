import type { TestDatabase } from '@genesis/common/testing'
import { chainTestsSkipReason, deploy } from '@genesis/contracts'
import type { ChainStatus, Estate, Parcel, Publication } from '@genesis/wire/land'
import { createCanvas, loadImage } from '@napi-rs/canvas'
import { AbiCoder, type Contract, id, parseEther } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chainEnv,
  freshDatabase,
  type Replica,
  startReplica,
  startWorld,
  tokenId,
  type World,
  within,
} from './helpers.js'

const skip = chainTestsSkipReason()
/** How soon a change on chain must show in the routes (the design's target; raise it on an overloaded machine). */
const VISIBLE_MS = Number(process.env.CHAIN_VISIBLE_MS ?? 2000)

describe.skipIf(skip)('land follows the chain', () => {
  let w: World
  let db: TestDatabase
  let land: Replica
  let a: string
  let b: string
  let c: string

  const parcel = async (x: number, y: number) => (await land.get<Parcel>(`/parcels/${x}/${y}`)).body.data
  const mapOf = async (nw: string, se: string) =>
    (await land.get<{ assets: { parcels: Parcel[]; estates: Estate[] } }>(`/map?nw=${nw}&se=${se}`)).body.data
      .assets
  /** The colour the PNG map gives a parcel (publications=true): the middle pixel of a map centred on it. */
  const colourOf = async (x: number, y: number) => {
    const res = await land.app.inject({
      method: 'GET',
      url: `/map.png?width=64&height=64&size=10&center=${x},${y}&publications=true`,
    })
    const image = await loadImage(res.rawPayload)
    const ctx = createCanvas(64, 64).getContext('2d')
    ctx.drawImage(image, 0, 0)
    const [r, g, b] = ctx.getImageData(32, 32, 1, 1).data
    return `#${[r!, g!, b!].map((v) => v.toString(16).padStart(2, '0')).join('')}`
  }
  const ON_SALE = '#1fbcff'
  const OWNED = '#3d3a46'
  const UNOWNED = '#09080a'
  /** The change is visible in the JSON routes within VISIBLE_MS of its receipt. */
  const visible = (what: string, condition: () => Promise<boolean>) => within(VISIBLE_MS, condition, what)

  beforeAll(async () => {
    w = await startWorld()
    a = w.alice.address.toLowerCase()
    b = w.bob.address.toLowerCase()
    c = w.carol.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [10, 11, 12, 13, 14], [40, 40, 40, 40, 40], a)
    await w.send(w.land, 'assignMultipleParcels', [20, 21], [40, 40], b)
    db = await freshDatabase()
    land = await startReplica(db.url, chainEnv(w.d, w.anvil.url))
  })
  afterAll(async () => {
    await land?.close()
    await db?.drop()
    await w?.close()
  })

  it('indexes the batch assignment, and /status says where it is', async () => {
    // the first sync includes the start: not held to the steady-state bound
    await within(10_000, async () => (await parcel(14, 40)).owner === a, 'assigned parcels')
    expect((await parcel(20, 40)).owner).toBe(b)
    expect((await parcel(15, 40)).owner).toBeNull()
    expect(await colourOf(14, 40)).toBe(OWNED)
    expect(await colourOf(15, 40)).toBe(UNOWNED)
    const head = await w.provider.getBlock('latest')
    await visible(
      'status at head',
      async () => (await land.get<ChainStatus>('/status')).body.data.block === head!.number,
    )
    for (const url of ['/status', '/v1/status']) {
      const { status, body } = await land.get<ChainStatus>(url)
      expect(status).toBe(200)
      expect(body.data).toMatchObject({
        source: 'chain',
        block: head!.number,
        block_hash: head!.hash!.toLowerCase(),
        // the head's block assigned the last parcel read above: this replica's index holds it
        served_block_hash: head!.hash!.toLowerCase(),
      })
      expect(body.data.block_time).toBe(new Date(head!.timestamp * 1000).toISOString())
      expect(body.data.lag_seconds).toBeGreaterThanOrEqual(0)
      expect(body.data.lag_seconds).toBeLessThan(5)
    }
    const metrics = await land.app.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toMatch(new RegExp(`land_indexer_block\\{[^}]*\\} ${head!.number}`))
    expect(metrics.body).toMatch(/land_indexer_lag_seconds\{[^}]*\} \d/)
  })

  it('a transfer: the new owner in /parcels, /map and the address listing', async () => {
    const { blockNumber } = await w.send(w.as(w.land, w.alice), 'transferLand', 10, 40, c)
    const block = await w.provider.getBlock(blockNumber)
    await visible('transfer', async () => (await parcel(10, 40)).owner === c)
    expect((await parcel(10, 40)).last_transferred_at).toBe(new Date(block!.timestamp * 1000).toISOString())
    const [onMap] = (await mapOf('10,40', '10,40')).parcels
    expect(onMap?.owner).toBe(c)
    const mine = (
      await land.get<{ parcels: Parcel[]; total: number }>(
        `/addresses/${c.toUpperCase().replace('0X', '0x')}/parcels`,
      )
    ).body.data
    expect(mine.parcels.map((p) => p.id)).toEqual(['10,40'])
  })

  it('an Update: the parcel data (CSV-quoted name)', async () => {
    await w.send(
      w.as(w.land, w.alice),
      'updateLandData',
      11,
      40,
      '0,"Tower, the tall one","A ""quoted"" word",Qm123',
    )
    await visible('update', async () => (await parcel(11, 40)).data.name === 'Tower, the tall one')
    expect((await parcel(11, 40)).data).toEqual({
      version: 0,
      name: 'Tower, the tall one',
      description: 'A "quoted" word',
      ipns: 'Qm123',
    })
  })

  it('an estate created, grown, shrunk and transferred', async () => {
    const estates = w.as(w.estates, w.alice)
    const { hash } = await w.send(
      estates,
      'createEstate',
      [12, 13],
      [40, 40],
      a,
      '0,Alice Gardens,Two parcels',
    )
    await visible('estate created', async () => (await parcel(12, 40)).estate_id === '1')
    let p = await parcel(13, 40)
    expect(p).toMatchObject({ owner: a, estate_id: '1', in_estate: true })
    let map = await mapOf('12,40', '14,40')
    expect(map.estates).toHaveLength(1)
    expect(map.estates[0]).toMatchObject({
      id: '1',
      owner: a,
      tx_hash: hash,
      data: { name: 'Alice Gardens', description: 'Two parcels' },
      size: 2,
    })

    await w.send(estates, 'addLand', 1, [14], [40])
    await visible('estate grown', async () => (await parcel(14, 40)).estate_id === '1')
    map = await mapOf('12,40', '14,40')
    expect(map.estates[0]?.size).toBe(3)

    await w.send(estates, 'removeLand', 1, tokenId(12, 40), b)
    await visible('estate shrunk', async () => (await parcel(12, 40)).estate_id === null)
    p = await parcel(12, 40)
    expect(p).toMatchObject({ owner: b, in_estate: false })
    map = await mapOf('12,40', '14,40')
    expect(map.estates[0]?.data.parcels).toEqual([
      { x: 13, y: 40 },
      { x: 14, y: 40 },
    ])

    await w.send(estates, 'updateMetadata', 1, '0,Alice Meadows,')
    await w.send(estates, 'transferFrom', a, c, 1)
    await visible('estate transferred', async () => (await parcel(13, 40)).owner === c)
    expect((await parcel(14, 40)).owner).toBe(c)
    map = await mapOf('13,40', '14,40')
    expect(map.estates[0]).toMatchObject({ owner: c, data: { name: 'Alice Meadows', description: '' } })
    const owned = (await land.get<{ estates: Estate[] }>(`/addresses/${c}/estates`)).body.data
    expect(owned.estates.map((e) => e.id)).toEqual(['1'])
  })

  it('a parcel sent straight to the estate registry (no AddLand) shows the registry, as the chain does', async () => {
    const registry = w.d.estateRegistry.toLowerCase()
    await w.send(w.land, 'assignNewParcel', 15, 41, a)
    await w.send(w.as(w.land, w.alice), 'transferFrom', a, w.d.estateRegistry, tokenId(15, 41))
    expect(String(await w.land.getFunction('ownerOf')(tokenId(15, 41))).toLowerCase()).toBe(registry)
    await visible('sent to the registry', async () => (await parcel(15, 41)).owner === registry)
    expect(await parcel(15, 41)).toMatchObject({ estate_id: null, in_estate: false })
    // the parcels the registry holds for an estate still show the estate's owner
    expect((await parcel(13, 40)).owner).toBe(c)
  })

  it('orders: created, cancelled, executed and expired', async () => {
    const now = async () => (await w.provider.getBlock('latest'))!.timestamp
    const market = w.as(w.market, w.bob)
    await w.send(w.as(w.land, w.bob), 'setApprovalForAll', w.d.marketplace, true)
    // created, then cancelled
    const price = parseEther('1500.25')
    const expiresAt = (await now()) + 86_400
    const created = await w.send(market, 'createOrder', w.d.landRegistry, tokenId(20, 40), price, expiresAt)
    await visible('order open', async () => (await parcel(20, 40)).publication !== null)
    const open = (await parcel(20, 40)).publication!
    expect(open).toMatchObject({
      tx_hash: created.hash,
      tx_status: 'confirmed',
      owner: b,
      price: 1500.25,
      status: 'open',
      buyer: null,
      contract_id: w.d.landRegistry,
      marketplace_id: w.d.marketplace,
      block_number: created.blockNumber,
      expires_at: expiresAt * 1000,
      type: 'parcel',
      asset_id: '20,40',
    })
    expect(await colourOf(20, 40)).toBe(ON_SALE)
    const listed = (await land.get<{ parcels: Parcel[]; total: number }>('/parcels')).body.data
    expect(listed.parcels.map((p) => p.id)).toContain('20,40')
    await w.send(market, 'cancelOrder', w.d.landRegistry, tokenId(20, 40))
    await visible('order cancelled', async () => (await parcel(20, 40)).publication === null)
    expect(await colourOf(20, 40)).toBe(OWNED)
    const cancelled = (await land.get<Publication>(`/publications/${created.hash}`)).body.data
    expect(cancelled.status).toBe('cancelled')

    // created, then executed by alice
    await w.send(w.mana, 'mint', a, parseEther('10000'))
    await w.send(w.as(w.mana, w.alice), 'approve', w.d.marketplace, parseEther('10000'))
    const second = await w.send(
      market,
      'createOrder',
      w.d.landRegistry,
      tokenId(20, 40),
      price,
      (await now()) + 86_400,
    )
    await visible(
      'second order open',
      async () => (await parcel(20, 40)).publication?.tx_hash === second.hash,
    )
    await w.send(w.as(w.market, w.alice), 'executeOrder', w.d.landRegistry, tokenId(20, 40), price)
    await visible('order executed', async () => (await parcel(20, 40)).owner === a)
    expect((await parcel(20, 40)).publication).toBeNull()
    const sold = (await land.get<Publication>(`/publications/${second.hash}`)).body.data
    expect(sold).toMatchObject({ status: 'sold', buyer: a })
    const history = (await land.get<Publication[]>('/parcels/20/40/publications')).body.data
    expect(history.map((h) => h.status)).toEqual(['sold', 'cancelled'])

    // created with a near expiry: shown as the parcel's publication until then, not after (still `open`)
    const expiry = (await now()) + 6
    const third = await w.send(
      market,
      'createOrder',
      w.d.landRegistry,
      tokenId(21, 40),
      parseEther('3'),
      expiry,
    )
    let seen = false
    await visible('short order shown', async () => {
      seen = (await parcel(21, 40)).publication?.tx_hash === third.hash
      return seen || Date.now() > expiry * 1000
    })
    // only an overloaded machine lets the order expire before the index shows it
    expect(seen || Date.now() > expiry * 1000).toBe(true)
    await within(15_000, async () => Date.now() > expiry * 1000, 'expiry passed')
    expect((await parcel(21, 40)).publication).toBeNull()
    expect((await land.get<Publication>(`/publications/${third.hash}`)).body.data.status).toBe('open')

    // an estate listed
    await w.send(w.as(w.estates, w.carol), 'setApprovalForAll', w.d.marketplace, true)
    const estateOrder = await w.send(
      w.as(w.market, w.carol),
      'createOrder',
      w.d.estateRegistry,
      1,
      parseEther('7'),
      (await now()) + 86_400,
    )
    await visible(
      'estate order',
      async () => (await mapOf('13,40', '13,40')).estates[0]?.publication?.tx_hash === estateOrder.hash,
    )
    expect((await mapOf('13,40', '13,40')).estates[0]?.publication).toMatchObject({
      type: 'estate',
      asset_id: '1',
      price: 7,
    })
  })

  it('bad data on chain is skipped and counted, never a crash', async () => {
    // a parcel outside the grid, listed too; an order for another NFT; non-UTF-8 and malformed data strings
    await w.send(w.land, 'assignMultipleParcels', [1000, 0], [0, 1000], a)
    await w.send(w.as(w.land, w.alice), 'setApprovalForAll', w.d.marketplace, true)
    const later = (await w.provider.getBlock('latest'))!.timestamp + 86_400
    await w.send(w.as(w.market, w.alice), 'createOrder', w.d.landRegistry, tokenId(1000, 0), 1n, later)
    const other: Contract = await deploy('LANDRegistry', w.admin)
    await w.send(other, 'assignNewParcel', 30, 40, a)
    await w.send(w.as(other, w.alice), 'setApprovalForAll', w.d.marketplace, true)
    await w.send(
      w.as(w.market, w.alice),
      'createOrder',
      (await other.getAddress()).toLowerCase(),
      tokenId(30, 40),
      1n,
      later,
    )
    // updateLandData(int256,int256,string) with bytes that are not UTF-8 (same ABI encoding as bytes)
    const selector = id('updateLandData(int256,int256,string)').slice(0, 10)
    const raw = AbiCoder.defaultAbiCoder().encode(['int256', 'int256', 'bytes'], [11, 40, '0x302cfffe'])
    await (await w.alice.sendTransaction({ to: w.d.landRegistry, data: selector + raw.slice(2) })).wait()
    for (const data of ['0,"unterminated', '1,future version,', '0,a,b,c,d,e', 'x']) {
      await w.send(w.as(w.land, w.alice), 'updateLandData', 11, 40, data)
    }
    // still following: a later transfer shows
    await w.send(w.as(w.land, w.alice), 'transferLand', 11, 40, b)
    await visible('after bad data', async () => (await parcel(11, 40)).owner === b)
    expect((await parcel(11, 40)).data.name).toBe('Tower, the tall one')
    expect((await parcel(30, 40)).publication).toBeNull()
    expect(Object.fromEntries(land.indexer.skipped)).toMatchObject({
      token_outside_grid: 3, // two Transfers and an order outside the grid
      order_other_nft: 1,
      malformed_data: 5,
    })
    const metrics = (await land.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/land_indexer_skipped_events_total\{[^}]*reason="malformed_data"[^}]*\} 5/)
    expect(metrics).toMatch(/land_indexer_skipped_events_total\{[^}]*reason="order_other_nft"[^}]*\} 1/)
  })
})
