import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, type Sql } from '@genesis/common'
import type { TestDatabase } from '@genesis/common/testing'
import { chainTestsSkipReason, deployLand, type LandDeployment, startAnvil } from '@genesis/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { slice } from '../../scripts/chain-demo/slice.js'
import { type DemoSummary, writeDemoOnChain } from '../../scripts/chain-demo/writer.js'
import { ChainIndexer } from '../../src/indexer/indexer.js'
import { Rpc } from '../../src/indexer/rpc.js'
import { generateGenesisCity, readSourceData, type SeedSet } from '../../src/seed/genesis-city.js'
import { freshDatabase, indexedRows } from './helpers.js'

const skip = chainTestsSkipReason()

/** The first parcels of the city: owners, names, a few estates and open listings of parcels and an estate. */
const PARCELS = 1200

interface Written {
  summary: DemoSummary
  d: LandDeployment
  head: number
  /** Transactions in each block the writer mined. */
  perBlock: number[]
  automineAfter: boolean
  /** anvil_dumpState's bytes (gzipped JSON), as bench:chain caches them. */
  state: Buffer
  /** The head block's hash and the number of logs of the land contracts on that chain. */
  headHash: string
  logs: number
  db: TestDatabase
}

/** Writes the slice on a fresh anvil, then indexes that chain from the deployment to the head. */
async function writeAndIndex(txsPerBlock: number, set: SeedSet): Promise<Written> {
  const anvil = await startAnvil()
  const provider = anvil.provider()
  const rpc = new Rpc(anvil.url, 60_000)
  try {
    const d = await deployLand(anvil.devWallet(0, provider))
    const before = Number(await rpc.blockNumber())
    const summary = await writeDemoOnChain(anvil.url, anvil.devWallet(0, provider).address, d, set, {
      txsPerBlock,
    })
    const head = Number(await rpc.blockNumber())
    const perBlock: number[] = []
    for (let n = before + 1; n <= head; n++) {
      const block = await rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', [
        `0x${n.toString(16)}`,
        false,
      ])
      perBlock.push(block.transactions.length)
    }
    const automineAfter = await rpc.call<boolean>('anvil_getAutomine', [])
    const state = Buffer.from((await rpc.call<string>('anvil_dumpState', [])).slice(2), 'hex')
    const { headHash, logs } = await chainFacts(rpc, d, head)
    const db = await freshDatabase()
    await new Promise<void>((resolve, reject) => {
      const indexer = new ChainIndexer({
        sql: db.sql,
        rpcUrl: anvil.url,
        contracts: { land: d.landRegistry, estates: d.estateRegistry, marketplace: d.marketplace },
        startBlock: BigInt(d.startBlock),
        confirmations: 12,
        pollMs: 50,
        logger: createLogger('land', { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn' }),
        onBatch: (batch) => {
          if (batch.to >= head) indexer.stop().then(resolve, reject)
        },
      })
      indexer.start()
    })
    return { summary, d, head, perBlock, automineAfter, state, headHash, logs, db }
  } finally {
    provider.destroy()
    await anvil.close()
  }
}

async function chainFacts(rpc: Rpc, d: LandDeployment, head: number) {
  const block = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [`0x${head.toString(16)}`, false])
  const logs = await rpc.call<unknown[]>('eth_getLogs', [
    {
      fromBlock: `0x${d.startBlock.toString(16)}`,
      toBlock: `0x${head.toString(16)}`,
      address: [d.landRegistry, d.estateRegistry, d.marketplace],
    },
  ])
  return { headHash: block.hash, logs: logs.length }
}

/** The indexed rows without what depends on the blocks: hashes, block numbers and times, order ids. */
async function withoutBlocks(sql: Sql) {
  const rows = await indexedRows(sql)
  const omit = (row: Record<string, unknown>, keys: string[]) =>
    Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)))
  const byAsset = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    `${a.type}:${a.asset_id}`.localeCompare(`${b.type}:${b.asset_id}`)
  return {
    parcels: rows.parcels.map((r) => omit(r, ['last_transferred_at'])),
    estates: rows.estates.map((r) => omit(r, ['tx_hash', 'last_transferred_at'])),
    publications: rows.publications
      .map((r) => omit(r, ['tx_hash', 'block_number', 'block_time_created_at', 'block_time_updated_at']))
      .sort(byAsset),
    orders: rows.orders.map((r) => omit(r, ['order_id', 'tx_hash'])).sort(byAsset),
  }
}

describe.skipIf(skip)('the demo writer on a local chain', () => {
  const set = slice(generateGenesisCity(readSourceData()), PARCELS)
  let packed: Written
  let single: Written

  beforeAll(async () => {
    // one after the other: two cores
    packed = await writeAndIndex(0, set)
    single = await writeAndIndex(1, set)
  }, 600_000)
  afterAll(async () => {
    await packed?.db.drop()
    await single?.db.drop()
  })

  it('packs many transactions a block, every one in a block and none lost, and turns automine back on', () => {
    expect(packed.summary.transactions).toBeGreaterThan(100)
    expect(packed.perBlock.reduce((n, c) => n + c, 0)).toBe(packed.summary.transactions)
    expect(packed.perBlock.length).toBe(packed.summary.blocks)
    expect(packed.summary.blocks).toBeLessThan(packed.summary.transactions / 10)
    expect(Math.max(...packed.perBlock)).toBeGreaterThan(50)
    // one a block: as many blocks as transactions, and the same transactions
    expect(single.perBlock.every((n) => n === 1)).toBe(true)
    expect(single.summary).toEqual({ ...packed.summary, blocks: packed.summary.transactions })
    expect(packed.automineAfter).toBe(true)
    expect(single.automineAfter).toBe(true)
  })

  it('indexes to the same tables as one transaction a block', async () => {
    const a = await withoutBlocks(packed.db.sql)
    const b = await withoutBlocks(single.db.sql)
    expect(a.parcels.filter((p) => p.owner !== null).length).toBe(packed.summary.parcels)
    expect(a).toEqual(b)
  })

  it('the tables hold the demo set: owners, names, estates in the set order, open listings', async () => {
    const rows = await indexedRows(packed.db.sql)
    const parcel = new Map(rows.parcels.map((r) => [`${r.x},${r.y}`, r]))
    // estates on chain: the set's estates with an owner, created in the set's order
    const estates = set.estates.filter((e) => e.owner !== null)
    expect(estates.length).toBeGreaterThan(1)
    expect(rows.estates.map((e) => [e.id, e.owner, e.name, e.description])).toEqual(
      estates.map((e, i) => [String(i + 1), e.owner, e.name, e.description]),
    )
    const chainEstate = new Map(estates.map((e, i) => [e.id, String(i + 1)]))
    for (const p of set.parcels) {
      const row = parcel.get(`${p.x},${p.y}`)!
      expect([row.owner, row.estate_id, row.name, row.description, row.ipns]).toEqual([
        p.owner,
        p.estate_id === null ? null : chainEstate.get(p.estate_id),
        p.name,
        p.description,
        p.ipns,
      ])
    }
    const open = set.publications.filter((p) => p.status === 'open' && p.expires_at > Date.now())
    expect(open.some((p) => p.type === 'estate')).toBe(true)
    const listed = (type: string, assetId: string, owner: string, price: number, expires: number) =>
      `${type} ${assetId} ${owner} ${price} ${expires}`
    expect(
      rows.publications
        .filter((r) => r.status === 'open')
        .map((r) => listed(r.type, r.asset_id, r.owner, Number(r.price), Number(r.expires_at)))
        .sort(),
    ).toEqual(
      open
        .map((p) =>
          listed(
            p.type,
            p.type === 'estate' ? chainEstate.get(p.asset_id)! : p.asset_id,
            p.owner,
            Number(p.price.toFixed(6)),
            Math.floor(p.expires_at / 1000) * 1000,
          ),
        )
        .sort(),
    )
    expect(rows.publications.length).toBe(open.length)
  })

  it('the dumped state starts a node with the same chain: blocks, logs and contracts (the bench cache)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-state-'))
    const file = join(dir, 'state.json.gz')
    writeFileSync(file, packed.state)
    const anvil = await startAnvil({ loadState: file })
    try {
      const rpc = new Rpc(anvil.url, 60_000)
      expect(Number(await rpc.blockNumber())).toBe(packed.head)
      const facts = await chainFacts(rpc, packed.d, packed.head)
      expect(facts).toEqual({ headHash: packed.headHash, logs: packed.logs })
      expect(facts.logs).toBeGreaterThan(packed.summary.parcels)
      expect(await rpc.call<string>('eth_getCode', [packed.d.landRegistry, 'latest'])).not.toBe('0x')
    } finally {
      await anvil.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
