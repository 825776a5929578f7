import {
  BATCH_SIZE,
  describeChain,
  inBatches,
  judgeChain,
  LogRange,
  Outage,
  readLogRange,
  type Sql,
} from '@genesis/common'
import { Counter, type Registry } from 'prom-client'
import { type DispenserChain, receiptRedeems } from '../chain/dispenser.js'
import {
  adoptLiveClaims,
  advanceCursor,
  expiredLiveClaims,
  liveContracts,
  markDead,
  markRedeemed,
  pendingClaims,
  readCursor,
  recordChain,
  rememberedChain,
  returnToClaimed,
  startChainOver,
} from '../db/reconciler.js'
import type { Logger } from './periodic.js'

export interface ReconcilerOptions {
  sql: Sql
  /** chain_id → its dispenser reads; chains without one are left alone. */
  chains: Map<string, DispenserChain>
  logger: Logger
  /** How long a reported hash the node does not know may stay pending before the claim goes back to claimed. */
  graceS: number
  /** Where the failure counter is registered (the app's registry); none in tests that do not read it. */
  metrics?: Registry | undefined
  /** Most blocks one eth_getLogs covers (fewer while the provider refuses a range: see LogRange). */
  maxBlockRange?: number
  /** How far back a chain seen for the first time is scanned. */
  initialLookback?: number
  /** Most expired or pending claims looked at per chain and tick. */
  batchSize?: number
  /**
   * NODE_ENV=production: a chain whose genesis is not the one its claims were decided on is refused (its
   * claims are left alone). Otherwise it is a development chain started afresh: its claims start over.
   */
  production?: boolean
  /** The clock of the back-off (tests move it). */
  clock?: () => number
}

/** What checking a chain's identity against the database decided. */
export type ChainCheck = { ok: true } | { ok: false; reason: string }

export interface ReconcileReport {
  /** Claims whose receipt or voucher was looked at. */
  checked: number
  successful: number
  failed: number
  /** Pending claims whose report did not redeem the voucher, back to `claimed`. */
  returned: number
  /** Chains whose tick stopped on an RPC error: nothing more was decided for them; retried next tick. */
  errors: number
}

/** The adoption of a chain given an RPC URL: its claims still live by the clock become watched, in batches. */
export const adoptChain = (sql: Sql, chainId: string, signal?: AbortSignal) =>
  inBatches(sql, (tx) => adoptLiveClaims(tx, chainId), { size: BATCH_SIZE, signal })

const failureCounters = new WeakMap<Registry, Counter<'chain_id'>>()

function failureCounter(registry: Registry | undefined): Counter<'chain_id'> | undefined {
  if (!registry) return undefined
  let counter = failureCounters.get(registry)
  if (!counter) {
    counter = new Counter({
      name: 'claims_reconciler_rpc_failures_total',
      help: 'Reconciler ticks of a chain that stopped on an error, the node down or slow (nothing decided from them)',
      labelNames: ['chain_id'],
      registers: [registry],
    })
    failureCounters.set(registry, counter)
  }
  return counter
}

/**
 * Decides claims of watched chains from the chain alone, at its final block (`confirmations` deep):
 * - a Claimed event of the claim's contract for its id → successful, found by one eth_getLogs per block
 *   range over every contract (a cursor per chain remembers the last final block applied), so that a
 *   redemption nobody reported is found too and the cost does not grow with the number of live claims;
 * - the final block past the voucher's expiresAt → `claimed(claimId)` there: true → successful,
 *   false → failed (the voucher can never be redeemed: its rewards are freed);
 * - a reported hash that reverted, is unknown past the grace period, or did not redeem this voucher →
 *   back to `claimed` (it proves nothing either way; the wallet may send again).
 * Every write is conditional on the claim still being live (and, for a report, still carrying the hash
 * that was checked), so replicas and operators never disagree.
 */
export function createReconciler(options: ReconcilerOptions) {
  const maxBlockRange = options.maxBlockRange ?? 5_000
  const initialLookback = options.initialLookback ?? 1_000
  const batchSize = options.batchSize ?? 1_000
  const failures = failureCounter(options.metrics)
  const adopted = new Set<string>()
  // per chain, the range its provider accepts, learned across ticks
  const ranges = new Map<string, LogRange>()
  const { sql, logger } = options
  const clock = options.clock ?? Date.now
  const production = options.production ?? false
  // per chain: its outage (back-off, one line per change), the genesis checked against the database,
  // why it was refused, and whether its cursor is past the chain's final block (said once)
  const outages = new Map<string, Outage>()
  const checked = new Map<string, string>()
  const refused = new Map<string, string>()
  const cursorAhead = new Set<string>()
  const outageOf = (chainId: string) => {
    let outage = outages.get(chainId)
    if (!outage) {
      outage = new Outage(logger, `reconciler: chain ${chainId}`)
      outages.set(chainId, outage)
    }
    return outage
  }

  /**
   * Whether the chain the providers serve is the one the chain's claims were decided on (recorded the first
   * time). Another one (its genesis differs) is, in development, a node started afresh: the chain's claims
   * start over (db/reconciler.ts startChainOver), in one log line; in production it is refused.
   */
  async function checkChain(chain: DispenserChain): Promise<ChainCheck> {
    // a look at the providers now: a node started afresh since the last tick shows its new chain
    await chain.pool.head()
    const served = await chain.pool.chain()
    if (checked.get(chain.chainId) === served.genesisHash) return { ok: true }
    const remembered = await rememberedChain(sql, chain.chainId)
    let verdict = judgeChain(remembered, served, { production })
    if (verdict === 'first') {
      // recorded before chains were: a cursor past the chain's head was another chain's
      const cursor = await readCursor(sql, chain.chainId)
      if (cursor !== null && BigInt(cursor) > (await chain.pool.head()))
        verdict = production ? 'refused' : 'replaced'
    }
    const previous = remembered ? describeChain(remembered) : 'a chain whose blocks this node does not have'
    if (verdict === 'refused') {
      const reason =
        `claims: RPC_URL_${chain.chainId} serves another chain (${describeChain(served)}) than the one its ` +
        `claims were decided on (${previous}); point it at that chain, or give this chain its own database`
      return { ok: false, reason }
    }
    if (verdict === 'first') await recordChain(sql, served)
    if (verdict === 'replaced') {
      const started = await startChainOver(sql, served, remembered?.genesisHash ?? null)
      ranges.delete(chain.chainId)
      if (started) {
        logger.warn(
          { chainId: chain.chainId, previous, now: describeChain(served), reopened: started.reopened },
          `reconciler: RPC_URL_${chain.chainId} is another chain than the one its claims were decided on ` +
            `(${previous}); a development chain, so its claims start over: ${started.reopened} successful or ` +
            'pending claims are claimed again for the new chain to decide, and its blocks are scanned afresh',
        )
      }
    }
    checked.set(chain.chainId, served.genesisHash)
    return { ok: true }
  }

  async function scanRedemptions(chain: DispenserChain, finalBlock: number, report: ReconcileReport) {
    const contracts = await liveContracts(sql, chain.chainId)
    const range = ranges.get(chain.chainId) ?? new LogRange({ max: maxBlockRange })
    ranges.set(chain.chainId, range)
    let cursor = (await readCursor(sql, chain.chainId)) ?? Math.max(-1, finalBlock - initialLookback)
    // the same chain with its final block behind the cursor (its head went back): nothing to scan until
    // it is past the cursor again, and said once
    if (cursor > finalBlock && !cursorAhead.has(chain.chainId)) {
      cursorAhead.add(chain.chainId)
      logger.warn(
        { chainId: chain.chainId, cursor, finalBlock },
        `reconciler: chain ${chain.chainId}'s final block ${finalBlock} is behind the last block scanned (${cursor}); waiting for the chain to pass it`,
      )
    } else if (cursor <= finalBlock) cursorAhead.delete(chain.chainId)
    while (cursor < finalBlock) {
      const { result: found, to: last } = await readLogRange(
        range,
        BigInt(cursor + 1),
        BigInt(finalBlock),
        (from, to) => chain.redemptions(contracts, Number(from), Number(to)),
        (width, err) =>
          logger.info(
            { chainId: chain.chainId, range: width, err: String(err) },
            'reconciler: the provider refused the block range, narrowing it',
          ),
      )
      const to = Number(last)
      const moved = await markRedeemed(sql, chain.chainId, found)
      report.successful += moved.length
      for (const id of moved) logger.info({ chainId: chain.chainId, claim: id }, 'reconciler: redeemed')
      await advanceCursor(sql, chain.chainId, to)
      cursor = to
    }
  }

  async function settleExpired(
    chain: DispenserChain,
    final: { number: number; timestamp: number },
    report: ReconcileReport,
  ) {
    const expired = await expiredLiveClaims(sql, chain.chainId, final.timestamp, batchSize)
    if (expired.length === 0) return
    report.checked += expired.length
    const redeemed = await chain.claimedAt(expired, final.number)
    const moved = await markRedeemed(
      sql,
      chain.chainId,
      expired.filter((_, i) => redeemed[i]).map((claim) => ({ claimId: claim.id, contract: claim.contract })),
    )
    report.successful += moved.length
    const dead = await markDead(
      sql,
      expired.filter((_, i) => !redeemed[i]).map((claim) => claim.id),
    )
    report.failed += dead.length
    for (const id of dead) logger.info({ chainId: chain.chainId, claim: id }, 'reconciler: voucher dead')
  }

  async function checkReports(chain: DispenserChain, report: ReconcileReport) {
    const pending = await pendingClaims(sql, chain.chainId, options.graceS, batchSize)
    if (pending.length === 0) return
    report.checked += pending.length
    const receipts = await Promise.all(pending.map((claim) => chain.receipt(claim.transaction_hash)))
    for (const [i, claim] of pending.entries()) {
      const receipt = receipts[i]!
      // a redeeming receipt waits for its block to be final; an unknown hash may still be in the mempool
      const proves = receipt ? receiptRedeems(receipt, claim) : !claim.report_is_old
      if (proves) continue
      if (await returnToClaimed(sql, claim.id, claim.transaction_hash)) {
        report.returned++
        logger.warn(
          { chainId: chain.chainId, claim: claim.id, hash: claim.transaction_hash, to: receipt?.to },
          'reconciler: the reported transaction did not redeem the voucher; the claim is claimed again',
        )
      }
    }
  }

  async function reconcileChain(chain: DispenserChain, report: ReconcileReport, signal?: AbortSignal) {
    const check = await checkChain(chain)
    if (!check.ok) {
      // left alone, said once
      if (refused.get(chain.chainId) !== check.reason) logger.warn({ chainId: chain.chainId }, check.reason)
      refused.set(chain.chainId, check.reason)
      return
    }
    refused.delete(chain.chainId)
    if (!adopted.has(chain.chainId)) {
      await adoptChain(sql, chain.chainId, signal)
      // stopped half-way: the rest is adopted on the next start
      if (signal?.aborted) return
      adopted.add(chain.chainId)
    }
    const final = await chain.finalBlock()
    if (final) {
      await scanRedemptions(chain, final.number, report)
      await settleExpired(chain, final, report)
    }
    await checkReports(chain, report)
  }

  return {
    /**
     * One pass over every watched chain whose back-off is over; callable directly (tests, or an operator's
     * script). A chain that fails is tried again after 1, 2, 4 … 128 s, and its outage is logged once.
     */
    async tick(signal?: AbortSignal): Promise<ReconcileReport> {
      const report: ReconcileReport = { checked: 0, successful: 0, failed: 0, returned: 0, errors: 0 }
      for (const chain of options.chains.values()) {
        if (signal?.aborted) break
        const outage = outageOf(chain.chainId)
        if (!outage.due(clock())) continue
        try {
          await reconcileChain(chain, report, signal)
          outage.recovered({ chainId: chain.chainId }, clock())
        } catch (err) {
          // the node down or slow (or the database): what was applied stands, the rest waits for its turn
          report.errors++
          failures?.inc({ chain_id: chain.chainId })
          outage.failed(err, { chainId: chain.chainId }, clock())
        }
      }
      return report
    },

    /**
     * Checks each watched chain's identity (at start): the chains refused (production, another chain), with
     * why. A chain whose providers do not answer is left to the ticks, which check it before acting.
     */
    async checkChains(): Promise<Map<string, string>> {
      const refusals = new Map<string, string>()
      for (const chain of options.chains.values()) {
        try {
          const check = await checkChain(chain)
          if (!check.ok) refusals.set(chain.chainId, check.reason)
        } catch (err) {
          outageOf(chain.chainId).failed(err, { chainId: chain.chainId }, clock())
        }
      }
      return refusals
    },
  }
}
export type Reconciler = ReturnType<typeof createReconciler>
