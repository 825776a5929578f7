import { type Logger, LogRange, Outage, type Queryable, readLogRange, type Sql } from '@genesis/common'
import type { Registry } from 'prom-client'
import {
  type ChainCursor,
  holdsChainData,
  type IndexedBlock,
  markSynced,
  pruneBelow,
  readChainIdentity,
  readCursor,
  recentBlocks,
  rememberBlocks,
  resetChainData,
  undoAbove,
  writeChainIdentity,
  writeCursor,
} from '../db/chain-state.js'
import { LandChanges } from '../db/land-changes.js'
import { acquireWriterLease, type WriterLease } from '../db/writer-lease.js'
import { applyEvents } from './apply.js'
import { describeChain, isDevelopmentChain, judgeStore, nodeChain } from './chain-identity.js'
import { type Contracts, type DecodedBatch, decodeLogs, TOPICS } from './events.js'
import type { SkipReason } from './handlers/index.js'
import { IndexerMetrics } from './metrics.js'
import { Rpc, type RpcBlock } from './rpc.js'

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
  /** The widest eth_getLogs range asked for (narrowed while a provider refuses, grown back after). */
  maxBlockRange?: number
  /** How long one JSON-RPC call may take; an eth_getLogs past it is asked again over a narrower range. */
  rpcTimeoutMs?: number
  /** Whether the chain is a development one, whose data is emptied when it is replaced (unset: by the node). */
  developmentChain?: boolean | undefined
  logger: Logger
  /** Where to register the indexer's metrics (the app's registry). */
  metrics?: Registry
  /**
   * After each committed transaction that changed land, each land_changed payload it sent (the embedded
   * database has no NOTIFY across connections, so the grid is told in-process).
   */
  onChange?: (payload: string) => void | Promise<void>
  /** Told of every committed batch (tests, the benchmark). */
  onBatch?: (batch: BatchReport) => void
  /** The database belongs to another chain or source: the indexer stopped, and this says why in one line. */
  onRefused?: (reason: string) => void
}

export interface BatchReport {
  from: bigint
  to: bigint
  head: bigint
  logs: number
  skipped: Record<string, number>
  ms: number
}

/** A batch read from the chain: its logs decoded, and the headers of their blocks and of its last block. */
interface ChainBatch extends DecodedBatch {
  to: bigint
  logs: number
  headers: Map<bigint, RpcBlock>
}

/** The database is not this chain's, and no development chain: nothing is written. */
class ChainRefused extends Error {}

/**
 * Follows the LAND registry, the estate registry and the marketplace into the land tables. Every replica
 * runs one; the holder of the writer lease (db/writer-lease.ts) indexes, the others wait to take it over.
 * Each step of the loop is one of: check that the database is this chain's, undo a reorganisation, apply
 * one batch of blocks, or see that the chain has nothing new.
 */
export class ChainIndexer {
  private readonly rpc: Rpc
  private readonly range: LogRange
  private readonly metrics: IndexerMetrics
  private lease: WriterLease | null = null
  /** The chain was checked against the database since the lease was taken. */
  private chainChecked = false
  private cursor: ChainCursor | null = null
  private stopped = true
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** Why the indexer refused the database, once it has. */
  refused: string | null = null

  constructor(private readonly options: IndexerOptions) {
    this.rpc = new Rpc(options.rpcUrl, options.rpcTimeoutMs, options.logger)
    this.range = new LogRange({ max: options.maxBlockRange ?? 2000 })
    this.metrics = new IndexerMetrics(options.metrics, () => this.cursor)
  }

  /** True while this replica holds the writer lease. */
  get writing(): boolean {
    return this.lease !== null
  }

  /** Skipped events by reason, since start. */
  get skipped(): ReadonlyMap<SkipReason, number> {
    return this.metrics.skipped
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.loop = this.run()
  }

  /** Stops after the current step and gives the lease up. */
  async stop(): Promise<void> {
    this.stopped = true
    this.wake?.()
    await this.loop
    await this.lease?.release()
    this.lease = null
  }

  private async run(): Promise<void> {
    const { logger, pollMs = 500 } = this.options
    // the shared back-off, on the poll's scale (pollMs doubling up to 16×): one line when steps start
    // failing, with the reason, and one when they succeed again
    const outage = new Outage(logger, 'land indexer', { firstMs: pollMs * 2, maxMs: pollMs * 16 })
    while (!this.stopped) {
      let moved = false
      let wait = pollMs
      try {
        const lease = this.lease ?? (await this.takeLease())
        if (lease) moved = await this.step(lease)
        else this.cursor = await readCursor(this.options.sql)
        outage.recovered()
      } catch (err) {
        if (err instanceof ChainRefused) {
          this.refuse(err.message)
          break
        }
        wait = outage.failed(err)
        // a broken connection may have taken the lock with it: compete for it again
        if (this.lease && !(await this.lease.holds())) {
          this.lease = null
          logger.warn('land indexer: lost the writer connection, competing for the lock again')
        }
      }
      if (!moved && !this.stopped) await this.pause(wait)
    }
    if (this.refused) {
      await this.lease?.release()
      this.lease = null
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

  private async takeLease(): Promise<WriterLease | null> {
    this.lease = await acquireWriterLease(this.options.sql, INDEXER_LOCK_KEY)
    if (this.lease) {
      this.chainChecked = false
      this.options.logger.info('land indexer: this replica is the writer')
    }
    return this.lease
  }

  private refuse(reason: string): void {
    this.stopped = true
    this.refused = reason
    if (this.options.onRefused) this.options.onRefused(reason)
    else this.options.logger.error(reason)
  }

  /** One step. True when it changed something (go on at once). */
  private async step(lease: WriterLease): Promise<boolean> {
    if (!this.chainChecked) {
      await this.checkChain(lease)
      this.chainChecked = true
    }
    const head = await this.rpc.blockNumber()
    const cursor = await readCursor(lease.sql)
    this.cursor = cursor
    if (cursor) {
      const atCursor = cursor.blockNumber > head ? null : await this.rpc.block(cursor.blockNumber)
      if (atCursor?.hash !== cursor.blockHash) {
        await this.rollback(lease, head, cursor, atCursor)
        return true
      }
    }
    const from = cursor ? cursor.blockNumber + 1n : this.options.startBlock
    if (from > head) {
      if (cursor) {
        await markSynced(lease.sql)
        this.cursor = { ...cursor, syncedAt: new Date() }
      }
      return false
    }
    const started = Date.now()
    const batch = await this.read(from, head)
    const skipped = await this.commit(lease, batch, head)
    this.metrics.countSkipped(skipped)
    const report: BatchReport = {
      from,
      to: batch.to,
      head,
      logs: batch.logs,
      skipped: Object.fromEntries(skipped),
      ms: Date.now() - started,
    }
    this.options.logger.info(
      { ...report, from: Number(from), to: Number(batch.to), head: Number(head), range: this.range.size },
      'land indexer: batch',
    )
    this.options.onBatch?.(report)
    return true
  }

  /**
   * The logs from `from` on, over as many blocks as the provider answers at once (a refusal or a timeout
   * narrows the range: @genesis/common's LogRange), with the headers of their blocks and of the last one.
   */
  private async read(from: bigint, head: bigint): Promise<ChainBatch> {
    const { contracts, logger } = this.options
    const { result: logs, to } = await readLogRange(
      this.range,
      from,
      head,
      (fromBlock, toBlock) =>
        this.rpc.logs({
          fromBlock,
          toBlock,
          address: [contracts.land, contracts.estates, contracts.marketplace],
          topics: [TOPICS],
        }),
      (range, err) =>
        logger.info(
          { range, err: String(err) },
          'land indexer: provider refused the range or timed out, narrowing',
        ),
    )
    const headers = await this.headers([...logs.map((log) => BigInt(log.blockNumber)), to])
    return { to, logs: logs.length, headers, ...decodeLogs(logs, headers, contracts) }
  }

  /** The batch, its blocks' hashes and the cursor, in one transaction; why each skipped event was skipped. */
  private async commit(
    lease: WriterLease,
    batch: ChainBatch,
    head: bigint,
  ): Promise<Map<SkipReason, number>> {
    const floor = head - BigInt(this.options.confirmations)
    const skipped = new Map<SkipReason, number>()
    const skip = (reason: SkipReason, count = 1) => skipped.set(reason, (skipped.get(reason) ?? 0) + count)
    if (batch.undecodable > 0) skip('undecodable_log', batch.undecodable)
    const last = batch.headers.get(batch.to)!
    this.cursor = await this.write(lease, async (tx, changes) => {
      const reasons = await applyEvents(tx, batch.events, this.options.contracts, floor, changes)
      for (const reason of reasons) skip(reason)
      const blocks: IndexedBlock[] = [...batch.headers.values()].map((b) => ({
        number: b.number,
        hash: b.hash,
        time: new Date(b.timestamp * 1000),
        undoable: b.number > floor,
      }))
      await rememberBlocks(tx, blocks)
      await writeCursor(
        tx,
        { number: batch.to, hash: last.hash, time: new Date(last.timestamp * 1000) },
        batch.to === head,
      )
      await pruneBelow(tx, floor + 1n)
      return readCursor(tx)
    })
    return skipped
  }

  /**
   * A transaction on the lease. What it writes to the land tables is named in `land_changed` notifications
   * sent at its commit, so that every replica's grid re-reads only those rows (and onChange is told).
   */
  private async write<T>(
    lease: WriterLease,
    work: (tx: Queryable, changes: LandChanges) => Promise<T>,
  ): Promise<T> {
    const changes = new LandChanges()
    const result = await lease.transaction(async (tx) => {
      await changes.begin(tx)
      const result = await work(tx, changes)
      await changes.notify(tx)
      return result
    })
    for (const payload of changes.payloads()) await this.options.onChange?.(payload)
    return result
  }

  private async headers(numbers: bigint[]): Promise<Map<bigint, RpcBlock>> {
    const unique = [...new Set(numbers)]
    const blocks = await this.rpc.blocks(unique)
    const found = new Map<bigint, RpcBlock>()
    unique.forEach((n, i) => {
      const block = blocks[i]
      if (!block) throw new Error(`block ${n} not found`)
      found.set(n, block)
    })
    return found
  }

  /**
   * The cursor's block is no longer canonical: find the newest indexed block that still is (the common
   * ancestor), undo everything above it, and go on from there. The node's top block (the one at the cursor's
   * height; at its head when the chain got shorter, as it does for a moment while a node swaps branches) is
   * the ancestor when it is stored as it is, and else names its parent: when that is stored (a reorganisation
   * of the last block, the usual one) it is the ancestor. Either is found with no further call; else the
   * node's blocks at every stored height are asked in one batch, never one call a block. None: the node is
   * another chain (a development node started afresh) or the reorganisation is deeper than the blocks kept.
   */
  private async rollback(
    lease: WriterLease,
    head: bigint,
    cursor: ChainCursor,
    atCursor: RpcBlock | null,
  ): Promise<void> {
    const kept = await recentBlocks(lease.sql)
    const stored = kept.filter((block) => block.number <= head)
    const top = atCursor ?? (await this.topBlock(cursor.blockNumber, head))
    let ancestor = top
      ? stored.find(
          (b) =>
            (b.number === top.number && b.hash === top.hash) ||
            (b.number === top.number - 1n && b.hash === top.parentHash),
        )
      : undefined
    if (!ancestor && stored.length > 0) {
      const onNode = await this.rpc.blocks(stored.map((b) => b.number))
      ancestor = stored.find((b, i) => onNode[i]?.hash === b.hash)
    }
    const found = ancestor
    if (!found || kept.some((b) => b.number > found.number && !b.undoable)) {
      if (await this.checkChain(lease)) return
      throw new Error(
        `reorganisation deeper than the blocks kept for undo (cursor ${cursor.blockNumber}): raise ` +
          'LAND_CONFIRMATIONS and re-index (`pnpm --filter @genesis/land reindex`)',
      )
    }
    const restored = await this.write(lease, async (tx, changes) => {
      const rows = await undoAbove(tx, found.number, changes)
      await writeCursor(tx, found, false)
      return rows
    })
    this.metrics.countReorg()
    this.options.logger.warn(
      { from: Number(cursor.blockNumber), ancestor: Number(found.number), restored },
      'land indexer: reorganisation undone back to the common ancestor',
    )
  }

  /**
   * The node's block at the cursor's height, or at its head when its chain is shorter. The head is asked
   * again when it was not (the block went between the two calls: the node swapped branches then).
   */
  private async topBlock(cursor: bigint, head: bigint): Promise<RpcBlock | null> {
    const now = head < cursor ? head : await this.rpc.blockNumber()
    return this.rpc.block(now < cursor ? now : cursor)
  }

  /**
   * Checks that the database holds this chain's data (README, "One chain per database"): records
   * the chain the first time, empties the data of another chain on a development chain (true: it did), and
   * refuses anything else (ChainRefused).
   */
  private async checkChain(lease: WriterLease): Promise<boolean> {
    const { logger, developmentChain } = this.options
    const node = await nodeChain(this.rpc, this.options.contracts)
    const stored = await readChainIdentity(lease.sql)
    const cursor = stored ? null : await readCursor(lease.sql)
    const cursorOnChain = cursor
      ? (await this.rpc.block(cursor.blockNumber))?.hash === cursor.blockHash
      : null
    const holdsData = !stored && !cursor ? await holdsChainData(lease.sql) : false
    const verdict = judgeStore(
      { stored, cursorOnChain, holdsData },
      node,
      isDevelopmentChain(node, developmentChain),
    )
    switch (verdict.action) {
      case 'go':
        return false
      case 'record':
        await writeChainIdentity(lease.sql, node)
        return false
      case 'refuse':
        throw new ChainRefused(verdict.reason)
      case 'reindex':
        logger.warn(
          { previous: verdict.previous, now: describeChain(node) },
          'land indexer: LAND_RPC_URL is another chain than the one indexed; a development chain, so its data is emptied and indexed again',
        )
        await this.write(lease, async (tx, changes) => {
          await resetChainData(tx)
          await writeChainIdentity(tx, node)
          changes.everything()
        })
        this.cursor = null
        return true
    }
  }
}
