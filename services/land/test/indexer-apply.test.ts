import { useTestDatabase } from '@genesis/common/testing/vitest'
import { encodeTokenId } from '@genesis/contracts/land'
import { beforeEach, describe, expect, it } from 'vitest'
import { undoAbove } from '../src/db/chain-state.js'
import { applyEvents } from '../src/indexer/apply.js'
import type { ChainEvent, Contracts, Located } from '../src/indexer/events.js'
import { migrationsDir } from '../src/paths.js'

const contracts: Contracts = {
  land: `0x${'1'.repeat(40)}`,
  estates: `0x${'2'.repeat(40)}`,
  marketplace: `0x${'3'.repeat(40)}`,
}
const alice = `0x${'a'.repeat(40)}`
const bob = `0x${'b'.repeat(40)}`
const data = (text: string) => new TextEncoder().encode(text)

const db = useTestDatabase({ migrationsDir })
beforeEach(async () => {
  await db.sql`truncate land_chain_undo, land_chain_orders, publications`
  await db.sql`update parcels set owner = null, estate_id = null where owner is not null or estate_id is not null`
  await db.sql`delete from estates`
})

let tx = 0
/** The events at consecutive log positions of one block. */
const inBlock = (block: number, events: ChainEvent[]): Located[] =>
  events.map((event) => ({
    event,
    block: BigInt(block),
    time: 1_700_000_000_000 + block * 12_000,
    txHash: `0x${(++tx).toString(16).padStart(64, '0')}`,
    address: event.kind.startsWith('Marketplace:') ? contracts.marketplace : contracts.land,
  }))

const apply = (events: Located[], floor = 0n) => db.sql.begin((q) => applyEvents(q, events, contracts, floor))
const parcel = async (x: number, y: number) =>
  (
    await db.sql<Array<{ owner: string | null; estate_id: string | null }>>`
    select owner, estate_id from parcels where x = ${x} and y = ${y}`
  )[0]!

const minted = (x: number, y: number, to: string): ChainEvent => ({
  kind: 'LANDRegistry:Transfer',
  from: `0x${'0'.repeat(40)}`,
  to,
  tokenId: encodeTokenId(x, y),
})
const estateMinted = (id: bigint, to: string): ChainEvent[] => [
  { kind: 'EstateRegistry:Transfer', from: `0x${'0'.repeat(40)}`, to, estateId: id },
  { kind: 'EstateRegistry:CreateEstate', owner: to, estateId: id, data: data('0,Gardens,') },
]

describe('a parcel moving into the estate registry', () => {
  it('AddLand before its Transfer (Decentraland’s LAND registry): the estate’s owner', async () => {
    await apply(inBlock(1, [minted(1, 1, alice), ...estateMinted(1n, alice)]))
    await apply(
      inBlock(2, [
        { kind: 'EstateRegistry:AddLand', estateId: 1n, tokenId: encodeTokenId(1, 1) },
        { kind: 'LANDRegistry:Transfer', from: alice, to: contracts.estates, tokenId: encodeTokenId(1, 1) },
      ]),
    )
    expect(await parcel(1, 1)).toEqual({ owner: alice, estate_id: '1' })
  })

  it('its Transfer before AddLand (ours): the estate’s owner', async () => {
    await apply(inBlock(1, [minted(2, 2, alice), ...estateMinted(1n, alice)]))
    await apply(
      inBlock(2, [
        { kind: 'LANDRegistry:Transfer', from: alice, to: contracts.estates, tokenId: encodeTokenId(2, 2) },
        { kind: 'EstateRegistry:AddLand', estateId: 1n, tokenId: encodeTokenId(2, 2) },
      ]),
    )
    expect(await parcel(2, 2)).toEqual({ owner: alice, estate_id: '1' })
  })

  it('a plain transfer with no AddLand: the registry, which the chain says owns it', async () => {
    await apply(inBlock(1, [minted(3, 3, alice)]))
    await apply(
      inBlock(2, [
        { kind: 'LANDRegistry:Transfer', from: alice, to: contracts.estates, tokenId: encodeTokenId(3, 3) },
      ]),
    )
    expect(await parcel(3, 3)).toEqual({ owner: contracts.estates, estate_id: null })
  })
})

describe('undo', () => {
  it('every change of an undoable block is rolled back by its image, whichever table it touched', async () => {
    await apply(inBlock(1, [minted(4, 4, alice), minted(5, 4, alice), ...estateMinted(1n, alice)]))
    const before =
      await db.sql`select x, y, owner, estate_id, name from parcels where owner is not null order by x, y`
    const estatesBefore = await db.sql`select id, owner, name from estates order by id`
    await apply(
      [
        ...inBlock(3, [
          { kind: 'EstateRegistry:AddLand', estateId: 1n, tokenId: encodeTokenId(4, 4) },
          { kind: 'LANDRegistry:Update', tokenId: encodeTokenId(5, 4), data: data('0,Corner,') },
        ]),
        ...inBlock(4, [
          { kind: 'EstateRegistry:Transfer', from: alice, to: bob, estateId: 1n },
          { kind: 'EstateRegistry:Update', estateId: 1n, data: data('0,Meadows,') },
          ...estateMinted(2n, bob),
          {
            kind: 'Marketplace:OrderCreated',
            orderId: `0x${'9'.repeat(64)}`,
            assetId: encodeTokenId(5, 4),
            seller: alice,
            nftAddress: contracts.land,
            priceInWei: 10n ** 18n,
            expiresAt: 2_000_000_000n,
          },
        ]),
      ],
      2n,
    )
    expect(await parcel(4, 4)).toEqual({ owner: bob, estate_id: '1' })
    expect((await db.sql`select count(*)::int as n from publications`)[0]!.n).toBe(1)
    await db.sql.begin((q) => undoAbove(q, 2n))
    expect(
      await db.sql`select x, y, owner, estate_id, name from parcels where owner is not null order by x, y`,
    ).toEqual(before)
    expect(await db.sql`select id, owner, name from estates order by id`).toEqual(estatesBefore)
    expect(await db.sql`select * from publications`).toEqual([])
    expect(await db.sql`select * from land_chain_orders`).toEqual([])
  })
})
