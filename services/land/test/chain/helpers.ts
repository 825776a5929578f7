import { createLogger, createSql, type Sql } from '@genesis/common'
import { createTestDatabase, type TestDatabase } from '@genesis/common/testing'
import {
  type Anvil,
  contractAt,
  deployLand,
  encodeTokenId,
  type LandDeployment,
  startAnvil,
} from '@genesis/contracts'
import type { Contract, JsonRpcProvider, Wallet } from 'ethers'
import { buildApp } from '../../src/app.js'
import { type Config, loadConfig } from '../../src/config.js'
import { createGridIndex } from '../../src/context.js'
import { columnsOf, estates, orders, parcels, publications, type TableShape } from '../../src/db/tables.js'
import type { GridIndex } from '../../src/grid/grid-index.js'
import { indexerFromConfig } from '../../src/indexer/from-config.js'
import type { BatchReport, ChainIndexer } from '../../src/indexer/indexer.js'
import { migrationsDir } from '../../src/paths.js'
import '@genesis/wire/formats'
import type { App } from '@genesis/common'

/** A local chain with the land contracts and a few funded people. */
export interface World {
  anvil: Anvil
  provider: JsonRpcProvider
  d: LandDeployment
  admin: Wallet
  alice: Wallet
  bob: Wallet
  carol: Wallet
  land: Contract
  estates: Contract
  market: Contract
  mana: Contract
  /** The contract connected to a wallet. */
  as(contract: Contract, who: Wallet): Contract
  /** Sends and waits for the receipt. */
  send(contract: Contract, method: string, ...args: unknown[]): Promise<{ hash: string; blockNumber: number }>
  close(): Promise<void>
}

/** `port`: a node on that port (a development node started again at the same URL). */
export async function startWorld(options: { port?: number } = {}): Promise<World> {
  const anvil = await startAnvil(options.port ? { port: options.port } : {})
  const provider = anvil.provider()
  const admin = anvil.devWallet(0, provider)
  const d = await deployLand(admin)
  const send = async (contract: Contract, method: string, ...args: unknown[]) => {
    const tx = await contract.getFunction(method)(...args)
    const receipt = await tx.wait()
    return { hash: receipt.hash.toLowerCase() as string, blockNumber: receipt.blockNumber as number }
  }
  return {
    anvil,
    provider,
    d,
    admin,
    alice: anvil.devWallet(1, provider),
    bob: anvil.devWallet(2, provider),
    carol: anvil.devWallet(3, provider),
    land: contractAt('LANDRegistry', d.landRegistry, admin),
    estates: contractAt('EstateRegistry', d.estateRegistry, admin),
    market: contractAt('Marketplace', d.marketplace, admin),
    mana: contractAt('MANAToken', d.mana, admin),
    as: (contract, who) => contract.connect(who) as Contract,
    send,
    close: async () => {
      provider.destroy()
      await anvil.close()
    },
  }
}

export const tokenId = encodeTokenId

/** The env land needs to follow the world's contracts. */
export const chainEnv = (d: LandDeployment, rpcUrl: string, extra: Record<string, string> = {}) => ({
  LAND_RPC_URL: rpcUrl,
  LAND_REGISTRY_ADDRESS: d.landRegistry,
  ESTATE_REGISTRY_ADDRESS: d.estateRegistry,
  MARKETPLACE_ADDRESS: d.marketplace,
  LAND_START_BLOCK: String(d.startBlock),
  LAND_POLL_MS: '50',
  LAND_REFRESH_DEBOUNCE_MS: '20',
  LAND_PREWARM: 'false',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
  ...extra,
})

/** A fresh, migrated database (unseeded: every parcel exists, nobody owns any). */
export const freshDatabase = (): Promise<TestDatabase> => createTestDatabase({ migrationsDir })

/** One replica of land following the chain: its own pool on the database, grid (LISTEN), app and indexer. */
export interface Replica {
  sql: Sql
  app: App
  grid: GridIndex
  indexer: ChainIndexer
  config: Config
  batches: BatchReport[]
  get<T = unknown>(url: string): Promise<{ status: number; body: { ok: boolean; data: T; code?: string } }>
  /** Stops the indexer (giving the lock up), the app and the pool. */
  close(): Promise<void>
  /** Ends the pool at once, as a crashed process would (the lock goes with its session). */
  kill(): Promise<void>
}

export async function startReplica(
  dbUrl: string,
  env: Record<string, string>,
  options: { start?: boolean } = {},
): Promise<Replica> {
  const config = loadConfig(env)
  const sql = createSql(dbUrl, { max: 5 })
  const logger = createLogger('land', config)
  const grid = createGridIndex(sql, config)
  await grid.listen()
  await grid.start()
  const app = await buildApp({ sql, config, context: { grid } })
  await app.ready()
  const batches: BatchReport[] = []
  const indexer = indexerFromConfig(sql, config, logger, {
    metrics: app.metrics,
    onBatch: (b) => batches.push(b),
  })!
  if (options.start ?? true) indexer.start()
  let closed = false
  return {
    sql,
    app,
    grid,
    indexer,
    config,
    batches,
    get: async (url) => {
      const res = await app.inject({ method: 'GET', url })
      return { status: res.statusCode, body: res.json() }
    },
    close: async () => {
      if (closed) return
      closed = true
      await indexer.stop()
      await app.close()
      await grid.close()
      await sql.end({ timeout: 5 })
    },
    kill: async () => {
      if (closed) return
      closed = true
      await sql.end({ timeout: 0 })
      // The loop may already be waiting on the ended pool for a connection (postgres.js never answers a
      // reserve() after end()), just as a crashed process never comes back: stop it if it can, don't wait.
      await Promise.race([
        indexer.stop().catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, 1000)),
      ])
      await app.close().catch(() => {})
      await grid.close().catch(() => {})
    },
  }
}

/**
 * Every row the indexer writes, every column its table's descriptor names (the write-time stamps aside), in
 * key order: two databases compare equal when these do.
 */
export async function indexedRows(sql: Sql) {
  const rowsOf = (t: TableShape) =>
    sql`select ${sql(columnsOf(t))} from ${sql(t.name)} order by ${sql([...t.key])}`
  const [cursor] = await sql`select block_number, block_hash, block_time from land_chain_cursor`
  return {
    parcels: await rowsOf(parcels),
    estates: await rowsOf(estates),
    publications: await rowsOf(publications),
    orders: await rowsOf(orders),
    cursor,
  }
}

/** Polls until the condition holds or `ms` pass. */
export async function within(
  ms: number,
  condition: () => boolean | Promise<boolean>,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    if (await condition()) return
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The replica's cursor block (null before the first batch). */
export async function cursorBlock(sql: Sql): Promise<number | null> {
  const [row] = await sql<Array<{ n: string }>>`select block_number::text as n from land_chain_cursor`
  return row ? Number(row.n) : null
}

/**
 * What a test opens (nodes, databases, replicas, proxies), closed after it, newest first: call `closeAll`
 * in `afterEach`.
 */
export function perTest() {
  const open: Array<() => Promise<unknown>> = []
  return {
    /** Closes `close` with the rest. */
    defer(close: () => Promise<unknown>) {
      open.push(close)
    },
    async world(options: { port?: number } = {}): Promise<World> {
      const w = await startWorld(options)
      open.push(() => w.close())
      return w
    },
    async database(): Promise<TestDatabase> {
      const db = await freshDatabase()
      open.push(() => db.drop())
      return db
    },
    async replica(dbUrl: string, env: Record<string, string>): Promise<Replica> {
      const r = await startReplica(dbUrl, env)
      open.push(() => r.close())
      return r
    },
    async closeAll() {
      for (const close of open.splice(0).reverse()) await close().catch(() => {})
    },
  }
}
