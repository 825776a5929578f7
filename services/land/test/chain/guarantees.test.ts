import { providerRefusals, startRpcProxy, startTcpProxy } from '@genesis/common/testing'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { ChainStatus, Parcel } from '@genesis/wire/land'
import { parseEther } from 'ethers'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  chainEnv,
  cursorBlock,
  freshDatabase,
  indexedRows,
  perTest,
  type Replica,
  startReplica,
  tokenId,
  type World,
  within,
} from './helpers.js'

const skip = chainTestsSkipReason()
const VISIBLE_MS = Number(process.env.CHAIN_VISIBLE_MS ?? 2000)

/** Things to close after each test, newest first. */
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

/** The rows a fresh index of the same (canonical) chain writes, from scratch on a new database. */
async function freshIndex(w: World) {
  const db = await freshDatabase()
  const r = await startReplica(db.url, chainEnv(w.d, w.anvil.url))
  try {
    await caughtUp(w, r)
    return await indexedRows(r.sql)
  } finally {
    await r.close()
    await db.drop()
  }
}

describe.skipIf(skip)('the indexer’s guarantees', () => {
  afterAll(async () => {
    await t.closeAll()
  })

  it('undoes a reorganisation that removes a transfer and an order, to equal a fresh index', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    const b = w.bob.address.toLowerCase()
    const c = w.carol.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [10, 11, 12], [50, 50, 50], a)
    await w.send(w.as(w.land, w.alice), 'setApprovalForAll', w.d.marketplace, true)
    const db = await database()
    const r = await replica(db.url, chainEnv(w.d, w.anvil.url))
    await caughtUp(w, r)

    const snapshot = await w.provider.send('evm_snapshot', [])
    await w.send(w.as(w.land, w.alice), 'transferLand', 10, 50, b)
    const expires = (await w.provider.getBlock('latest'))!.timestamp + 86_400
    const order = await w.send(
      w.as(w.market, w.alice),
      'createOrder',
      w.d.landRegistry,
      tokenId(11, 50),
      parseEther('9'),
      expires,
    )
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 10, 50)) === b, 'transfer indexed')
    await within(
      VISIBLE_MS * 4,
      async () => (await r.get(`/publications/${order.hash}`)).status === 200,
      'order indexed',
    )

    // the chain drops those two blocks and grows another way
    await w.provider.send('evm_revert', [snapshot])
    await w.send(w.as(w.land, w.alice), 'transferLand', 12, 50, c)
    for (let i = 0; i < 3; i++) await w.provider.send('evm_mine', [])

    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 12, 50)) === c, 'new branch indexed')
    expect(await ownerOf(r, 10, 50)).toBe(a)
    expect((await r.get(`/publications/${order.hash}`)).status).toBe(404)
    expect((await r.get<Parcel>('/parcels/11/50')).body.data.publication).toBeNull()
    await caughtUp(w, r)
    const metrics = (await r.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/land_indexer_reorgs_total\{[^}]*\} 1/)

    expect(await indexedRows(r.sql)).toEqual(await freshIndex(w))
  }, 120_000)

  it('finds the ancestor of a reorganisation of the last block by its parent hash, asking no older block', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    const b = w.bob.address.toLowerCase()
    const c = w.carol.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [20, 21], [51, 51], a)
    const proxy = await startRpcProxy(w.anvil.url, {})
    t.defer(() => proxy.close())
    const db = await database()
    const r = await replica(db.url, chainEnv(w.d, proxy.url))
    await caughtUp(w, r)
    // blocks the window keeps below the one the reorganisation will replace
    for (let i = 0; i < 3; i++) {
      await w.send(w.land, 'assignNewParcel', 30 + i, 51, a)
      await caughtUp(w, r)
    }
    await w.send(w.as(w.land, w.alice), 'transferLand', 20, 51, b)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 20, 51)) === b, 'transfer indexed')
    const cursor = BigInt((await cursorBlock(r.sql))!)
    const asked = proxy.blocksAsked.length
    // the cursor's block replaced by another at the same height (anvil_reorg: the transfer dropped), and
    // the new branch grows
    await w.provider.send('anvil_reorg', [1, []])
    await w.send(w.as(w.land, w.alice), 'transferLand', 21, 51, c)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 21, 51)) === c, 'new branch indexed')
    expect(await ownerOf(r, 20, 51)).toBe(a)
    // from the reorganisation on, no block below the ancestor was asked, though the window keeps older
    // ones (the genesis, 0, is every look at the providers'): the node's block at the cursor's height
    // named its parent, the ancestor, and the indexer went on from there
    const since = proxy.blocksAsked.slice(asked).filter((n) => n !== 0n)
    const ancestor = cursor - 1n
    const kept = await r.sql<Array<{ n: number }>>`select number::int as n from land_chain_blocks`
    expect(kept.some(({ n }) => BigInt(n) < ancestor)).toBe(true)
    expect(since.filter((n) => n < ancestor)).toEqual([])
    expect(since).toContain(cursor)
    const metrics = (await r.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/land_indexer_reorgs_total\{[^}]*\} 1/)
    await caughtUp(w, r)
    expect(await indexedRows(r.sql)).toEqual(await freshIndex(w))
  }, 120_000)

  /**
   * The node drops the cursor's block and has no other at its height yet (a node between two branches looks
   * like this for a moment): its head is the block below the cursor, which the indexer holds. `between`:
   * the block goes after the indexer read the head and before it asks for the block.
   */
  async function shorterChain(between: boolean) {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    const b = w.bob.address.toLowerCase()
    const c = w.carol.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [40, 41], [52, 52], a)
    let drop: { at: bigint; snapshot: unknown } | null = null
    const revert = (snapshot: unknown) => w.provider.send('evm_revert', [snapshot])
    const proxy = await startRpcProxy(w.anvil.url, {
      beforeBlock: async (n) => {
        if (drop?.at !== n) return
        const { snapshot } = drop
        drop = null
        await revert(snapshot)
      },
    })
    t.defer(() => proxy.close())
    const db = await database()
    const r = await replica(db.url, chainEnv(w.d, proxy.url))
    await caughtUp(w, r)
    for (let i = 0; i < 3; i++) {
      await w.send(w.land, 'assignNewParcel', 50 + i, 52, a)
      await caughtUp(w, r)
    }
    const snapshot = await w.provider.send('evm_snapshot', [])
    await w.send(w.as(w.land, w.alice), 'transferLand', 40, 52, b)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 40, 52)) === b, 'transfer indexed')
    const cursor = BigInt((await cursorBlock(r.sql))!)
    const asked = proxy.blocksAsked.length
    const read = proxy.answered.length
    if (between) drop = { at: cursor, snapshot }
    else await revert(snapshot)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 40, 52)) === a, 'transfer undone')
    expect(await w.provider.getBlockNumber()).toBe(Number(cursor) - 1)
    const ancestor = cursor - 1n
    const since = proxy.blocksAsked.slice(asked).filter((n) => n !== 0n)
    expect(since).toContain(ancestor)
    expect(since.filter((n) => n < ancestor)).toEqual([])
    const metrics = (await r.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/land_indexer_reorgs_total\{[^}]*\} 1/)
    // and the branch that grows from there is indexed as any other, from above the ancestor: nothing the
    // indexer held at the ancestor is read again
    await w.send(w.as(w.land, w.alice), 'transferLand', 41, 52, c)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 41, 52)) === c, 'new branch indexed')
    expect(proxy.answered.slice(read).filter((span) => span.from <= ancestor)).toEqual([])
    await caughtUp(w, r)
    expect(await indexedRows(r.sql)).toEqual(await freshIndex(w))
  }

  it('finds the ancestor of a chain that got shorter in the node’s top block, asking no older block', async () => {
    await shorterChain(false)
  }, 120_000)

  it('finds it so too when the cursor’s block goes between the head and the block asked', async () => {
    await shorterChain(true)
  }, 120_000)

  it('resumes from its cursor after a restart mid-sync: every block once, the same tables', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    await w.send(w.as(w.land, w.alice), 'setApprovalForAll', w.d.marketplace, true)
    const expires = (await w.provider.getBlock('latest'))!.timestamp + 86_400
    for (let i = 0; i < 24; i++) {
      await w.send(w.land, 'assignNewParcel', i - 12, 60, a)
      // orders are not idempotent: applied twice, the second would be counted as a duplicate
      if (i % 4 === 0)
        await w.send(
          w.as(w.market, w.alice),
          'createOrder',
          w.d.landRegistry,
          tokenId(i - 12, 60),
          1n + BigInt(i),
          expires,
        )
    }
    const target = await head(w)
    const db = await database()
    const env = chainEnv(w.d, w.anvil.url, { LAND_MAX_BLOCK_RANGE: '4' })
    const first = await startReplica(db.url, env)
    t.defer(() => first.close())
    await within(20_000, async () => first.batches.length >= 2, 'two batches')
    await first.close()
    const stoppedAt = (await cursorBlock(db.sql))!
    expect(stoppedAt).toBeLessThan(target)

    const second = await replica(db.url, env)
    await caughtUp(w, second)
    const ranges = [...first.batches, ...second.batches].map((batch) => ({
      from: Number(batch.from),
      to: Number(batch.to),
    }))
    // contiguous, no block twice, none skipped
    expect(ranges[0]!.from).toBe(w.d.startBlock)
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.from).toBe(ranges[i - 1]!.to + 1)
    expect(ranges.at(-1)!.to).toBeGreaterThanOrEqual(target)
    expect(second.batches[0]!.from).toBe(BigInt(stoppedAt + 1))
    expect(second.indexer.skipped.get('duplicate_publication')).toBeUndefined()
    expect(await indexedRows(second.sql)).toEqual(await freshIndex(w))
  }, 120_000)

  it('two replicas: one writes; the other takes over when the first dies', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    const b = w.bob.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [0, 1], [70, 70], a)
    const db = await database()
    const env = chainEnv(w.d, w.anvil.url)
    const first = await replica(db.url, env)
    await within(10_000, async () => first.indexer.writing, 'first writes')
    const second = await replica(db.url, env)
    await caughtUp(w, first)
    expect(second.indexer.writing).toBe(false)
    // the follower's index follows the writer's commits (NOTIFY)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(second, 1, 70)) === a, 'follower sees the data')
    expect(second.batches).toHaveLength(0)

    await first.kill()
    await within(10_000, async () => second.indexer.writing, 'second takes over')
    await w.send(w.as(w.land, w.alice), 'transferLand', 0, 70, b)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(second, 0, 70)) === b, 'second indexes')
    expect(second.batches.length).toBeGreaterThan(0)
  }, 90_000)

  it('keeps answering while the RPC is gone for 20 s, shows the lag, and resumes by itself', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    const b = w.bob.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [0, 1], [80, 80], a)
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: w.anvil.port })
    t.defer(() => proxy.close())
    const db = await database()
    const r = await replica(db.url, chainEnv(w.d, proxy.via(w.anvil.url)))
    await caughtUp(w, r)
    const lag = async () => (await r.get<ChainStatus>('/status')).body.data.lag_seconds!

    await proxy.cut('refuse')
    await w.send(w.as(w.land, w.alice), 'transferLand', 0, 80, b)
    await new Promise((resolve) => setTimeout(resolve, 20_000))
    const during = await r.get<Parcel>('/parcels/0/80')
    expect(during.status).toBe(200)
    expect(during.body.data.owner).toBe(a) // the last data, not an error
    expect(await lag()).toBeGreaterThanOrEqual(15)
    expect((await r.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(
      /land_indexer_lag_seconds\{[^}]*\} (1[5-9]|[2-9]\d)/,
    )

    await proxy.restore()
    await within(15_000, async () => (await ownerOf(r, 0, 80)) === b, 'resumed')
    await within(5_000, async () => (await lag()) < 5, 'lag back down')
  }, 90_000)

  it('adapts to a provider that refuses wide ranges and large results', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    for (let i = 0; i < 12; i++) {
      await w.send(
        w.land,
        'assignMultipleParcels',
        [0, 1, 2, 3, 4].map((x) => x + 5 * i),
        [90, 90, 90, 90, 90],
        a,
      )
    }
    const limited = await startRpcProxy(w.anvil.url, {
      range: providerRefusals.alchemy(8),
      answer: providerRefusals.infura(12),
    })
    t.defer(() => limited.close())
    const db = await database()
    const r = await replica(db.url, chainEnv(w.d, limited.url, { LAND_MAX_BLOCK_RANGE: '1000' }))
    await caughtUp(w, r, 30_000)
    expect(limited.counts.range).toBeGreaterThan(0)
    expect(limited.counts.answer).toBeGreaterThan(0)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 59, 90)) === a, 'index refreshed')
    expect(await indexedRows(r.sql)).toEqual(await freshIndex(w))
  }, 120_000)

  it('narrows the range when a wide eth_getLogs gets no answer in time', async () => {
    const w = await world()
    const a = w.alice.address.toLowerCase()
    for (let i = 0; i < 12; i++) await w.send(w.land, 'assignMultipleParcels', [i], [95], a)
    // wide ranges answer after 3 s, past the indexer's 500 ms timeout: only narrowing gets through
    const slow = await startRpcProxy(w.anvil.url, { delayMs: (span) => (span.blocks > 4 ? 3000 : 0) })
    t.defer(() => slow.close())
    const db = await database()
    const r = await replica(
      db.url,
      chainEnv(w.d, slow.url, { LAND_MAX_BLOCK_RANGE: '1000', LAND_RPC_TIMEOUT_MS: '500' }),
    )
    await caughtUp(w, r, 30_000)
    expect(slow.counts.delayed).toBeGreaterThan(0)
    expect(r.batches.every((b) => b.to - b.from < 4n)).toBe(true)
    await within(VISIBLE_MS * 4, async () => (await ownerOf(r, 11, 95)) === a, 'index refreshed')
  }, 120_000)
})
