import { type OutageLogger, PoolProvider, ProviderPool, splitRpcUrls } from '@genesis/common'
import { Interface, type TransactionReceipt } from 'ethers'
import { claimIdToBytes32 } from './voucher.js'

/** The parts of the RewardsDispenser's ABI the service reads. */
export const dispenserInterface = new Interface([
  'function claimed(bytes32 claimId) view returns (bool)',
  'event Claimed(bytes32 indexed claimId, address indexed beneficiary, uint256[] itemIds)',
])
export const CLAIMED_TOPIC = dispenserInterface.getEvent('Claimed')!.topicHash

/** A bytes32 claimId (16 zero bytes, then the uuid's) back to the claim's uuid; null when it cannot be one. */
export function claimIdToUuid(bytes32: string): string | null {
  const hex = bytes32.toLowerCase()
  if (!/^0x0{32}[0-9a-f]{32}$/.test(hex)) return null
  const h = hex.slice(34)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** The deepest block counted as final: `confirmations` below the head. */
export interface FinalBlock {
  number: number
  /** Unix seconds. */
  timestamp: number
}

/** A Claimed event of a dispenser, in a final block. */
export interface Redemption {
  claimId: string
  contract: string
  transactionHash: string
  block: number
}

/** What the chain says of a voucher at the final block. */
export type VoucherState = 'redeemed' | 'dead' | 'live'

/** The voucher's on-chain facts the decisions need. */
export interface ClaimOnChain {
  id: string
  contract: string
  expires_at: Date
}

/** Unix seconds of the voucher's expiresAt (the voucher carries whole seconds). */
export const expiresAtS = (claim: ClaimOnChain) => Math.floor(claim.expires_at.getTime() / 1000)

/**
 * One chain's dispenser reads, all at a block `confirmations` deep: a redemption only counts once a
 * reorganisation can no longer take it away.
 */
export interface DispenserChain {
  chainId: string
  confirmations: number
  /** The chain's providers (RPC_URL_<chain_id>): its head, its identity, the healthiest provider. */
  pool: ProviderPool
  /** An ethers provider on the pool. */
  provider: PoolProvider
  finalBlock(): Promise<FinalBlock | null>
  /** `claimed(claimId)` of each claim's contract at `block`, in JSON-RPC batches. */
  claimedAt(claims: readonly ClaimOnChain[], block: number): Promise<boolean[]>
  /** Claimed events of `contracts` in blocks `from`..`to` (one eth_getLogs, whatever the number of claims). */
  redemptions(contracts: readonly string[], from: number, to: number): Promise<Redemption[]>
  receipt(hash: string): Promise<TransactionReceipt | null>
  /** Whether the chain shows the voucher redeemed, dead (expired unredeemed) or still redeemable. */
  voucherState(claim: ClaimOnChain): Promise<VoucherState>
  /** HTTP requests sent to the node so far (a JSON-RPC batch counts once). */
  requests(): number
  destroy(): void
}

export interface ChainOptions {
  confirmations: number
  /** Most calls in one JSON-RPC batch. */
  batchMaxCount?: number
  /** How long one request to one provider may take. */
  timeoutMs?: number
  /** Told when one of several providers goes down, lags or comes back. */
  logger?: OutageLogger
}

/** The dispenser reads of one chain, over its providers: `urls` is one URL or a comma-separated list. */
export function createDispenserChain(chainId: string, urls: string, options: ChainOptions): DispenserChain {
  const pool = new ProviderPool({
    urls: splitRpcUrls(urls),
    name: `RPC_URL_${chainId}`,
    timeoutMs: options.timeoutMs,
    logger: options.logger,
  })
  // the chain fixed (no network probing) and no response cache (PoolProvider): each tick sees the blocks
  // that appeared since the last one; its head is the pool's, never a lagging provider's
  const provider = new PoolProvider(pool, chainId, { batchMaxCount: options.batchMaxCount ?? 500 })
  const { confirmations } = options

  const finalBlock = async (): Promise<FinalBlock | null> => {
    const head = await provider.getBlockNumber()
    if (head < confirmations) return null
    const block = await provider.getBlock(head - confirmations)
    if (!block) throw new Error(`block ${head - confirmations} not found`)
    return { number: block.number, timestamp: block.timestamp }
  }

  const claimedAt = (claims: readonly ClaimOnChain[], block: number) =>
    Promise.all(
      claims.map(async (claim) => {
        const data = dispenserInterface.encodeFunctionData('claimed', [claimIdToBytes32(claim.id)])
        const result = await provider.call({ to: claim.contract, data, blockTag: block })
        return dispenserInterface.decodeFunctionResult('claimed', result)[0] === true
      }),
    )

  return {
    chainId,
    confirmations,
    pool,
    provider,
    finalBlock,
    claimedAt,
    async redemptions(contracts, from, to) {
      if (contracts.length === 0 || from > to) return []
      const logs = await provider.getLogs({
        address: [...contracts],
        topics: [CLAIMED_TOPIC],
        fromBlock: from,
        toBlock: to,
      })
      return logs.flatMap((log) => {
        const claimId = log.topics[1] ? claimIdToUuid(log.topics[1]) : null
        if (log.removed || !claimId) return []
        return [
          {
            claimId,
            contract: log.address.toLowerCase(),
            transactionHash: log.transactionHash.toLowerCase(),
            block: log.blockNumber,
          },
        ]
      })
    },
    receipt: (hash) => provider.getTransactionReceipt(hash),
    async voucherState(claim) {
      const final = await finalBlock()
      if (!final) return 'live'
      const [redeemed] = await claimedAt([claim], final.number)
      if (redeemed) return 'redeemed'
      return final.timestamp > expiresAtS(claim) ? 'dead' : 'live'
    },
    requests: () => pool.requests,
    destroy: () => provider.destroy(),
  }
}

/** A DispenserChain per RPC_URL_<chain_id> (each one URL or a comma-separated list of providers). */
export function createDispenserChains(
  rpcUrls: Map<string, string>,
  options: ChainOptions,
): Map<string, DispenserChain> {
  const chains = new Map<string, DispenserChain>()
  for (const [chainId, url] of rpcUrls) chains.set(chainId, createDispenserChain(chainId, url, options))
  return chains
}

/** Whether a reported transaction redeemed this claim's voucher: a Claimed log of the claim's contract for its id. */
export function receiptRedeems(
  receipt: TransactionReceipt,
  claim: { id: string; contract: string },
): boolean {
  if (receipt.status !== 1) return false
  const id = claimIdToBytes32(claim.id)
  return receipt.logs.some(
    (log) =>
      log.address.toLowerCase() === claim.contract &&
      log.topics[0] === CLAIMED_TOPIC &&
      log.topics[1]?.toLowerCase() === id,
  )
}
