// LAND_RPC_URL as a list of providers of one chain, on a real anvil behind real proxies: one stopped (a TCP
// proxy cut) while the indexer follows the other; one lagging (a JSON-RPC proxy answering as a node that
// many blocks behind does), which must never make the indexer undo blocks, even once the fresh provider is
// gone: a provider behind the others is not a reorganisation.
import { startRpcProxy, startTcpProxy } from '@genesis/common/testing'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { Parcel } from '@genesis/wire/land'
import { toQuantity } from 'ethers'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { chainEnv, cursorBlock, perTest, type Replica, type World, within } from './helpers.js'

const skip = chainTestsSkipReason()

const t = perTest()
afterEach(() => t.closeAll())
const { world, database, replica } = t
const head = async (w: World) => (await w.provider.getBlock('latest'))!.number
const caughtUp = async (w: World, r: Replica, ms = 20_000) => {
  const target = await head(w)
  await within(ms, async () => ((await cursorBlock(r.sql)) ?? -1) >= target, `indexed up to ${target}`)
}
const ownerOf = async (r: Replica, x: number, y: number) =>
  (await r.get<Parcel>(`/parcels/${x}/${y}`)).body.data.owner
const reorgs = async (r: Replica) => {
  const text = (await r.app.inject({ method: 'GET', url: '/metrics' })).body
  return Number(/^land_indexer_reorgs_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0)
}

describe.skipIf(skip)('the indexer over several providers', () => {
  afterAll(async () => {
    await t.closeAll()
  })

  it('keeps indexing when one of two providers is stopped', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    const b = w.bob.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [20], [60], a)
    const [one, two] = [
      await startTcpProxy({ host: '127.0.0.1', port: w.anvil.port }),
      await startTcpProxy({ host: '127.0.0.1', port: w.anvil.port }),
    ]
    t.defer(() => one.close())
    t.defer(() => two.close())
    const db = await database()
    const r = await replica(db.url, chainEnv(w.d, `${one.via(w.anvil.url)},${two.via(w.anvil.url)}`))
    await within(10_000, async () => (await ownerOf(r, 20, 60)) === a, 'assignment indexed')

    await one.cut('refuse')
    await w.send(w.as(w.land, w.alice), 'transferLand', 20, 60, b)
    await within(10_000, async () => (await ownerOf(r, 20, 60)) === b, 'transfer indexed through the other')
    await caughtUp(w, r)
    expect(r.indexer.refused).toBeNull()
  })

  it('never undoes blocks because a provider lags: not while the fresh one answers, not once it is gone', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    const b = w.bob.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [21], [60], a)
    // a provider that stops following the chain at `stalled` (null: it follows)
    let stalled: bigint | null = null
    const lagging = await startRpcProxy(w.anvil.url, { head: (node) => stalled ?? node })
    const fresh = await startTcpProxy({ host: '127.0.0.1', port: w.anvil.port })
    t.defer(() => lagging.close())
    t.defer(() => fresh.close())
    const db = await database()
    // the lagging provider first in the list: its place does not make it the one followed
    const r = await replica(
      db.url,
      chainEnv(w.d, `${lagging.url},${fresh.via(w.anvil.url)}`, { LAND_CONFIRMATIONS: '2' }),
    )
    await caughtUp(w, r)

    // it stalls, and falls 30 blocks behind: deeper than the blocks kept for undo, so were its head taken
    // the indexer would undo past the final depth, or stop on "reorganisation deeper than the blocks kept"
    stalled = BigInt(await head(w))
    await w.provider.send('anvil_mine', [toQuantity(30)])
    await w.send(w.as(w.land, w.alice), 'transferLand', 21, 60, b)
    await within(10_000, async () => (await ownerOf(r, 21, 60)) === b, 'transfer indexed from the fresh one')
    await caughtUp(w, r)
    const cursor = (await cursorBlock(r.sql))!

    await fresh.cut('refuse')
    await w.provider.send('anvil_mine', [toQuantity(5)])
    // a second of polls (every 50 ms) on the lagging provider alone: nothing undone, nothing moved
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(await cursorBlock(r.sql)).toBe(cursor)
    expect(await ownerOf(r, 21, 60)).toBe(b)
    expect(await reorgs(r)).toBe(0)
    expect(r.indexer.refused).toBeNull()

    // it catches up: the indexer goes on from where it was
    stalled = null
    await caughtUp(w, r)
    expect(await reorgs(r)).toBe(0)
    expect(await ownerOf(r, 21, 60)).toBe(b)
  })
})
