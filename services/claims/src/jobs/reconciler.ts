import type { Sql } from '@genesis/common'
import { JsonRpcProvider, Network, type TransactionReceipt } from 'ethers'
import type { Logger } from './periodic.js'

/** The part of an ethers provider the reconciler uses. */
export interface ReceiptSource {
  getTransactionReceipt(hash: string): Promise<TransactionReceipt | null>
}

export interface ReconcilerOptions {
  sql: Sql
  /** chain_id → provider; chains without one are left alone. */
  providers: Map<string, ReceiptSource>
  logger: Logger
  /** A pending claim with no matching receipt this long past expires_at can no longer succeed. */
  graceS: number
  batchSize?: number
}

export interface ReconcileReport {
  checked: number
  successful: number
  failed: number
  /** Receipt lookups that threw (RPC down, …); those claims are retried next tick. */
  errors: number
}

interface PendingClaim {
  id: string
  contract: string
  transaction_hash: string
  past_grace: boolean
}

/**
 * JsonRpcProvider per RPC_URL_<chain_id>: the chain fixed so that it never probes the network, and no
 * response cache, since each tick must see receipts that appeared since the last one.
 */
export function createProviders(rpcUrls: Map<string, string>): Map<string, JsonRpcProvider> {
  const providers = new Map<string, JsonRpcProvider>()
  for (const [chainId, url] of rpcUrls) {
    const network = Network.from(BigInt(chainId))
    providers.set(chainId, new JsonRpcProvider(url, network, { staticNetwork: network, cacheTimeout: -1 }))
  }
  return providers
}

/**
 * Moves `pending` claims from their receipts: status 1 on the claim's contract → successful, status 0 →
 * failed. A receipt for another contract is not this claim (the owner can report the right hash); a
 * claim with no matching receipt past expires_at + grace is failed, since its voucher can no longer be used.
 * Updates are conditional on the claim being unchanged, so concurrent replicas or an operator win cleanly.
 */
export function createReconciler(options: ReconcilerOptions) {
  const batchSize = options.batchSize ?? 100

  async function settle(claim: PendingClaim, status: 'successful' | 'failed'): Promise<boolean> {
    const result = await options.sql`
      update claim_transactions set status = ${status}, updated_at = now()
      where id = ${claim.id} and status = 'pending' and transaction_hash = ${claim.transaction_hash}`
    return result.count > 0
  }

  async function reconcileChain(chainId: string, source: ReceiptSource, report: ReconcileReport) {
    const pending = await options.sql<PendingClaim[]>`
      select id, contract, transaction_hash,
        expires_at + make_interval(secs => ${options.graceS}) < now() as past_grace
      from claim_transactions
      where status = 'pending' and chain_id = ${chainId}
      order by updated_at
      limit ${batchSize}`
    for (const claim of pending) {
      report.checked++
      let receipt: TransactionReceipt | null
      try {
        receipt = await source.getTransactionReceipt(claim.transaction_hash)
      } catch (err) {
        report.errors++
        options.logger.warn({ err, chainId, claim: claim.id }, 'reconciler: receipt lookup failed')
        continue
      }
      const matches = receipt !== null && receipt.to?.toLowerCase() === claim.contract
      if (receipt && !matches) {
        options.logger.warn(
          { chainId, claim: claim.id, to: receipt.to },
          'reconciler: the reported transaction is not a call to the claim contract',
        )
      }
      let status: 'successful' | 'failed' | null = null
      if (matches) status = receipt?.status === 1 ? 'successful' : 'failed'
      else if (claim.past_grace) status = 'failed'
      if (status && (await settle(claim, status))) {
        report[status]++
        options.logger.info({ chainId, claim: claim.id, status }, 'reconciler: claim settled')
      }
    }
  }

  return {
    /** One pass over every configured chain; callable directly (tests, or an operator's script). */
    async tick(): Promise<ReconcileReport> {
      const report: ReconcileReport = { checked: 0, successful: 0, failed: 0, errors: 0 }
      for (const [chainId, source] of options.providers) await reconcileChain(chainId, source, report)
      return report
    },
  }
}
export type Reconciler = ReturnType<typeof createReconciler>
