import {
  type ChainIdentity,
  type OutageLogger,
  ProviderPool,
  type RpcCall,
  RpcError,
  splitRpcUrls,
} from '@genesis/common'
import type { RpcLog } from './events.js'

export type { RpcCall }
export { RpcError }

export interface RpcBlock {
  number: bigint
  hash: string
  parentHash: string
  /** Seconds since epoch. */
  timestamp: number
}

/**
 * The chain's JSON-RPC as the indexer and the chain demo use it: single calls and batches over fetch, to
 * the providers of LAND_RPC_URL (one URL or a comma-separated list; @genesis/common's ProviderPool: the
 * healthiest, failing over on errors and timeouts). `blockNumber` is the pool's head, which no lagging
 * provider decides: a provider behind the others never makes the indexer undo blocks. ethers' provider
 * does much more work to decode a large answer, and nothing of it is needed for the few calls made.
 */
export class Rpc {
  readonly pool: ProviderPool

  constructor(urls: string, timeoutMs = 10_000, logger?: OutageLogger) {
    this.pool = new ProviderPool({ urls: splitRpcUrls(urls), name: 'LAND_RPC_URL', timeoutMs, logger })
  }

  call<T>(method: string, params: unknown[]): Promise<T> {
    return this.pool.call<T>(method, params)
  }

  /** The calls' results, in order, in as few requests as the node's size limit allows; the first error is thrown. */
  batch<T>(calls: readonly RpcCall[]): Promise<T[]> {
    return this.pool.batch<T>(calls)
  }

  /** The head to index up to: every provider the calls go to has it. */
  blockNumber(): Promise<bigint> {
    return this.pool.head()
  }

  async chainId(): Promise<bigint> {
    return BigInt((await this.pool.chain()).chainId)
  }

  /** The chain the providers serve: its id and genesis hash. */
  identity(): Promise<ChainIdentity> {
    return this.pool.chain()
  }

  /** The node's software (`anvil/v1.2.3`...), or '' when it does not say. */
  async clientVersion(): Promise<string> {
    return this.call<string>('web3_clientVersion', []).catch(() => '')
  }

  /** The canonical block at `number`, or null when the node has none (yet). */
  async block(number: bigint): Promise<RpcBlock | null> {
    return blockOf(await this.call<RawBlock | null>('eth_getBlockByNumber', [hex(number), false]))
  }

  /** The canonical blocks at `numbers` (null where the node has none), a hundred headers a batch. */
  async blocks(numbers: readonly bigint[]): Promise<Array<RpcBlock | null>> {
    const out: Array<RpcBlock | null> = []
    for (let i = 0; i < numbers.length; i += 100) {
      const part = numbers.slice(i, i + 100)
      const raw = await this.batch<RawBlock | null>(
        part.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
      )
      out.push(...raw.map(blockOf))
    }
    return out
  }

  logs(filter: {
    fromBlock: bigint
    toBlock: bigint
    address: string[]
    topics: string[][]
  }): Promise<RpcLog[]> {
    return this.call<RpcLog[]>('eth_getLogs', [
      {
        fromBlock: hex(filter.fromBlock),
        toBlock: hex(filter.toBlock),
        address: filter.address,
        topics: filter.topics,
      },
    ])
  }
}

const hex = (n: bigint) => `0x${n.toString(16)}`

interface RawBlock {
  number: string
  hash: string
  parentHash: string
  timestamp: string
}

const blockOf = (raw: RawBlock | null): RpcBlock | null =>
  raw
    ? {
        number: BigInt(raw.number),
        hash: raw.hash.toLowerCase(),
        parentHash: raw.parentHash.toLowerCase(),
        timestamp: Number(BigInt(raw.timestamp)),
      }
    : null
