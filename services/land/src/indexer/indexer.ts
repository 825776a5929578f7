import type { Logger, Queryable, Sql } from '@genesis/common'
import { isEmbedded } from '@genesis/common'
import { Counter, Gauge, type Registry } from 'prom-client'
import {
  type ChainCursor,
  type IndexedBlock,
  markSynced,
  pruneBelow,
  readCursor,
  recentBlocks,
  rememberBlocks,
  undoAbove,
  writeCursor,
} from '../db/chain-state.js'
import { LandChanges } from '../db/land-changes.js'
import { applyEvents, type Located, type SkipReason } from './apply.js'
import { type Contracts, decodeLog, type RpcLog, TOPICS } from './events.js'
import { isRangeTooLarge, isTimeout, Rpc, type RpcBlock } from './rpc.js'

/** The advisory lock one indexer holds across replicas ("land" "ch" as a number). */
export const INDEXER_LOCK_KEY = 0x6c616e6463680001n

export interface IndexerOptions {
  sql: Sql
  rpcUrl: string
  /** Lower-case addresses. */
  contracts: Contracts
  startBlock: bigint
  /** Blocks this deep are final enough: no undo kept below. */
  confirmations: number
  /** Pause between polls once at the head, and after an error (doubled while errors repeat). */
  pollMs?: number
  /** The widest eth_getLogs range asked for (halved while a provider refuses, grown back after). */
  maxBlockRange?: number
  /** How long one JSON-RPC call may take; an eth_getLogs past it is asked again over half the range. */
  rpcTimeoutMs?: number
  logger: Logger
  /** Where to register the indexer's metrics (the app's registry). */
  metrics?: Registry
  /**
   * After each committed batch or rollback that changed land, with the land_changed payload it sent (the
   * embedded database has no NOTIFY across connections, so the grid is told in-process).
   */
  onChange?: (payload: string) => void | Promise<void>
  /** Told of every committed batch (tests, the benchmark). */
  onBatch?: (batch: BatchReport) => void
}

export interface BatchReport {
  from: bigint
  to: bigint
  head: bigint
  logs: number
  skipped: Record<string, number>
  ms: number
}

/** The chain state as /status and the metrics show it. */
export interface ChainStatus {
  block: bigint
  blockHash: string
  blockTime: Date
  lagSeconds: number
}

/** How stale the data is: since the indexer last saw the chain had nothing newer, or since the block's time. */
export const lagOf = (cursor: ChainCursor, now = Date.now()): number =>
  Math.max(0, now - Math.max(cursor.syncedAt.getTime(), cursor.blockTime.getTime())) / 1000

/**
 * Follows the LAND registry, the estate registry and the marketplace into the land tables. One writer across
 * replicas: the holder of a session advisory lock, whose connection also carries every batch's transaction
 * (so a writer that lost its lock cannot commit). The others wait for the lock and take over when its holder's
 * session ends.
 */
export class ChainIndexer {
  private readonly rpc: Rpc
  private readonly pollMs: number
  private readonly maxRange: number
  private range: number
  private stopped = true
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** The reserved connection holding the lock (undefined: not the writer; null on the embedded database). */
  private conn: (Sql & { release(): void }) | null | undefined
  private cursor: ChainCursor | null = null
  private readonly gauges: { block: Gauge; lag: Gauge; skipped: Counter<'reason'>; reorgs: Counter }
  /** Skipped events by reason, since start (also in the metric). */
  readonly skipped = new Map<SkipReason, number>()

  constructor(private readonly options: IndexerOptions) {
    this.rpc = new Rpc(options.rpcUrl, options.rpcTimeoutMs)
    this.pollMs = options.pollMs ?? 500
    this.maxRange = options.maxBlockRange ?? 2000
    this.range = this.maxRange
    const registers = options.metrics ? [options.metrics] : []
    const self = this
    this.gauges = {
      block: new Gauge({
        name: 'land_indexer_block',
        help: 'The last block of the chain indexed into the land tables',
        registers,
        collect() {
          if (self.cursor) this.set(Number(self.cursor.blockNumber))
        },
      }),
      lag: new Gauge({
        name: 'land_indexer_lag_seconds',
        help: 'Seconds since the indexed data was last known to be current with the chain',
        registers,
        collect() {
          if (self.cursor) this.set(lagOf(self.cursor))
        },
      }),
      skipped: new Counter({
        name: 'land_indexer_skipped_events_total',
        help: 'Events on chain the indexer skipped, by reason (bad data, other NFTs...)',
        labelNames: ['reason'],
        registers,
      }),
      reorgs: new Counter({
        name: 'land_indexer_reorgs_total',
        help: 'Chain reorganisations undone',
        registers,
      }),
    }
  }

  /** True while this replica holds the writer lock. */
  get writing(): boolean {
    return this.conn !== undefined
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.loop = this.run()
  }

  /** Stops after the current step and gives the lock up. */
  async stop(): Promise<void> {
    this.stopped = true
    this.wake?.()
    await this.loop
    await this.releaseLock()
  }

  private async run(): Promise<void> {
    let failures = 0
    while (!this.stopped) {
      let progressed = false
      try {
        if (this.conn === undefined && !(await this.acquireLock())) {
          this.cursor = await readCursor(this.options.sql)
        } else {
          progressed = await this.step()
        }
        failures = 0
      } catch (err) {
        failures++
        // the first failure and then every power of two: an outage is visible without a line per poll
        if ((failures & (failures - 1)) === 0) {
          this.options.logger.warn({ err: String(err), failures }, 'land indexer: step failed, retrying')
        }
        // a broken writer connection means the lock may be gone: give it up and compete again
        if (this.conn) await this.checkLock()
      }
      if (!progressed && !this.stopped) await this.pause(this.pollMs * 2 ** Math.min(failures, 4))
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wake = done
    })
  }

  private async acquireLock(): Promise<boolean> {
    const { sql, logger } = this.options
    if (isEmbedded(sql)) {
      // one process owns the embedded database: nobody to race
      this.conn = null
      return true
    }
    const conn = await sql.reserve()
    try {
      const [row] = await conn<
        Array<{ ok: boolean }>
      >`select pg_try_advisory_lock(${INDEXER_LOCK_KEY.toString()}::bigint) as ok`
      if (!row?.ok) {
        conn.release()
        return false
      }
    } catch (err) {
      conn.release()
      throw err
    }
    this.conn = conn
    logger.info('land indexer: this replica is the writer')
    return true
  }

  private async checkLock(): Promise<void> {
    const conn = this.conn
    if (!conn) return
    try {
      await conn`select 1`
    } catch {
      conn.release()
      this.conn = undefined
      this.options.logger.warn('land indexer: lost the writer connection, competing for the lock again')
    }
  }

  private async releaseLock(): Promise<void> {
    const conn = this.conn
    this.conn = undefined
    if (!conn) return
    await conn`select pg_advisory_unlock(${INDEXER_LOCK_KEY.toString()}::bigint)`.catch(() => {})
    conn.release()
  }

  /**
   * A transaction on the writer's own connection (the one holding the lock). What it writes to the land
   * tables is named in one `land_changed` notification, sent at its commit, so that every replica's grid
   * re-reads only those rows.
   */
  private async transaction<T>(work: (q: Queryable, changes: LandChanges) => Promise<T>): Promise<T> {
    const changes = new LandChanges()
    const conn = this.conn
    if (conn === null) {
      const result = (await this.options.sql.begin(async (tx) => {
        await changes.begin(tx)
        const result = await work(tx, changes)
        await changes.notify(tx)
        return result
      })) as T
      await this.changed(changes)
      return result
    }
    if (conn === undefined) throw new Error('not the writer')
    await conn`begin`
    let result: T
    try {
      await changes.begin(conn)
      result = await work(conn, changes)
      await changes.notify(conn)
      await conn`commit`
    } catch (err) {
      await conn`rollback`.catch(() => {})
      throw err
    }
    await this.changed(changes)
    return result
  }

  /** Tells onChange what a committed transaction wrote, when it wrote anything. */
  private async changed(changes: LandChanges): Promise<void> {
    if (!changes.empty) await this.options.onChange?.(changes.payload())
  }

  /** One batch, a rollback, or a look at the head. True when it changed something (go on at once). */
  async step(): Promise<boolean> {
    const { sql, contracts, startBlock, confirmations, logger } = this.options
    const head = await this.rpc.blockNumber()
    const cursor = await readCursor(this.conn ?? sql)
    this.cursor = cursor
    if (cursor) {
      const canonical = cursor.blockNumber <= head ? await this.rpc.block(cursor.blockNumber) : null
      if (canonical?.hash !== cursor.blockHash) {
        await this.rollback(head, cursor)
        return true
      }
    }
    const from = cursor ? cursor.blockNumber + 1n : startBlock
    if (from > head) {
      if (cursor) {
        await markSynced(this.conn ?? sql)
        this.cursor = { ...cursor, syncedAt: new Date() }
      }
      return false
    }
    const started = Date.now()
    const { logs, to } = await this.fetchLogs(from, head)
    const blocks = await this.headers([...new Set(logs.map((l) => BigInt(l.blockNumber))), to])
    for (const log of logs) {
      if (log.removed || blocks.get(BigInt(log.blockNumber))?.hash !== log.blockHash.toLowerCase()) {
        throw new Error(`the chain moved while reading blocks ${from}..${to}`)
      }
    }
    const floor = head - BigInt(confirmations)
    logs.sort(
      (a, b) =>
        Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) ||
        Number(BigInt(a.logIndex) - BigInt(b.logIndex)),
    )
    const skipped = new Map<SkipReason, number>()
    const skip = (reason: SkipReason) => skipped.set(reason, (skipped.get(reason) ?? 0) + 1)
    const toBlock = blocks.get(to)!
    const events: Located[] = []
    for (const log of logs) {
      let event: ReturnType<typeof decodeLog>
      try {
        event = decodeLog(log, contracts)
      } catch {
        skip('undecodable_log')
        continue
      }
      if (!event) continue
      const block = BigInt(log.blockNumber)
      events.push({
        event,
        block,
        time: blocks.get(block)!.timestamp * 1000,
        txHash: log.transactionHash.toLowerCase(),
        address: log.address.toLowerCase(),
      })
    }
    const next = await this.transaction(async (q, changes) => {
      for (const reason of await applyEvents(q, events, contracts, floor, changes)) skip(reason)
      const indexed: IndexedBlock[] = [...blocks.values()].map((b) => ({
        number: b.number,
        hash: b.hash,
        time: new Date(b.timestamp * 1000),
        undoable: b.number > floor,
      }))
      await rememberBlocks(q, indexed)
      const block = { number: to, hash: toBlock.hash, time: new Date(toBlock.timestamp * 1000) }
      await writeCursor(q, block, to === head)
      await pruneBelow(q, floor + 1n)
      return readCursor(q)
    })
    this.cursor = next
    for (const [reason, count] of skipped) {
      this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + count)
      this.gauges.skipped.inc({ reason }, count)
    }
    const report: BatchReport = {
      from,
      to,
      head,
      logs: logs.length,
      skipped: Object.fromEntries(skipped),
      ms: Date.now() - started,
    }
    logger.info(
      { ...report, from: Number(from), to: Number(to), head: Number(head), range: this.range },
      'land indexer: batch',
    )
    this.options.onBatch?.(report)
    return true
  }

  /**
   * eth_getLogs from `from` over as many blocks as the provider accepts, halving the range when it refuses or
   * does not answer in time (a range with too many logs can take longer than the timeout to answer, and then
   * asking for it again would never end). A node that is down times out at every range: the range shrinks,
   * and grows back once calls succeed.
   */
  private async fetchLogs(from: bigint, head: bigint): Promise<{ logs: RpcLog[]; to: bigint }> {
    const { contracts } = this.options
    for (;;) {
      let to = from + BigInt(this.range) - 1n
      if (to > head) to = head
      try {
        const logs = await this.rpc.logs({
          fromBlock: from,
          toBlock: to,
          address: [contracts.land, contracts.estates, contracts.marketplace],
          topics: [Object.values(TOPICS)],
        })
        if (to - from + 1n === BigInt(this.range) && this.range < this.maxRange) {
          this.range = Math.min(this.maxRange, this.range * 2)
        }
        return { logs, to }
      } catch (err) {
        if (!(isRangeTooLarge(err) || isTimeout(err)) || this.range === 1) throw err
        this.range = Math.max(1, Math.floor(Number(to - from + 1n) / 2))
        this.options.logger.info(
          { range: this.range, err: String(err) },
          'land indexer: provider refused the range or timed out, halving',
        )
      }
    }
  }

  private async headers(numbers: bigint[]): Promise<Map<bigint, RpcBlock>> {
    const unique = [...new Set(numbers)]
    const found = new Map<bigint, RpcBlock>()
    const blocks = await this.rpc.blocks(unique)
    unique.forEach((n, i) => {
      const block = blocks[i]
      if (!block) throw new Error(`block ${n} not found`)
      found.set(n, block)
    })
    return found
  }

  /**
   * The cursor's block is no longer canonical: find the newest indexed block that still is (the common
   * ancestor), undo everything above it, and go on from there.
   */
  private async rollback(head: bigint, cursor: ChainCursor): Promise<void> {
    const stored = await recentBlocks(this.conn ?? this.options.sql)
    let ancestor: IndexedBlock | undefined
    for (const block of stored) {
      if (block.number > head) continue
      const canonical = await this.rpc.block(block.number)
      if (canonical?.hash === block.hash) {
        ancestor = block
        break
      }
    }
    const above = stored.filter((b) => ancestor === undefined || b.number > ancestor.number)
    if (!ancestor || above.some((b) => !b.undoable)) {
      throw new Error(
        `reorganisation deeper than the blocks kept for undo (cursor ${cursor.blockNumber}): raise LAND_CONFIRMATIONS and re-index`,
      )
    }
    const found = ancestor
    const restored = await this.transaction(async (q, changes) => {
      const rows = await undoAbove(q, found.number, changes)
      await writeCursor(q, found, false)
      return rows
    })
    this.gauges.reorgs.inc()
    this.options.logger.warn(
      { from: Number(cursor.blockNumber), ancestor: Number(found.number), restored },
      'land indexer: reorganisation undone back to the common ancestor',
    )
  }
}
