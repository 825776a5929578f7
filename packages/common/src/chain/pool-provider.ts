/*
 * The provider pool behind the client libraries the services use: an ethers provider (claims' dispenser,
 * collections' chain reader) and the legacy `sendAsync` provider eth-connect takes (contract-wallet
 * signatures). Both send every call through the pool, so failover and the choice of provider are the
 * pool's; ethers' FallbackProvider asks several providers for a quorum instead, which neither prefers the
 * freshest head nor refuses a lagging one's.
 */
import {
  JsonRpcApiProvider,
  type JsonRpcApiProviderOptions,
  type JsonRpcError,
  type JsonRpcPayload,
  type JsonRpcResult,
  Network,
} from 'ethers'
import type { RpcAnswer } from './json-rpc.js'
import type { ProviderPool } from './providers.js'

const toResult = (id: number, answer: RpcAnswer): JsonRpcResult | JsonRpcError =>
  answer.error
    ? { id, error: { code: answer.error.code, message: answer.error.message, data: answer.error.data } }
    : { id, result: answer.result }

/**
 * An ethers provider on a pool, for a fixed chain (no network probing) and without a response cache (each
 * look must see the blocks that appeared since the last). `eth_blockNumber` is the pool's head: the head
 * every provider it routes to has reached, never a lagging provider's.
 */
export class PoolProvider extends JsonRpcApiProvider {
  constructor(
    readonly pool: ProviderPool,
    chainId: bigint | number | string,
    options: Omit<JsonRpcApiProviderOptions, 'staticNetwork'> = {},
  ) {
    const network = Network.from(BigInt(chainId))
    super(network, { cacheTimeout: -1, ...options, staticNetwork: network })
  }

  override async send(method: string, params: unknown[] | Record<string, unknown>): Promise<unknown> {
    await this._start()
    return super.send(method, params)
  }

  override async _send(
    payload: JsonRpcPayload | JsonRpcPayload[],
  ): Promise<(JsonRpcResult | JsonRpcError)[]> {
    const payloads = Array.isArray(payload) ? payload : [payload]
    const heads = payloads.filter((p) => p.method === 'eth_blockNumber')
    const others = payloads.filter((p) => p.method !== 'eth_blockNumber')
    const [head, answers] = await Promise.all([
      heads.length > 0 ? this.pool.head() : null,
      others.length > 0
        ? this.pool.send(others.map((p) => ({ method: p.method, params: (p.params ?? []) as unknown[] })))
        : [],
    ])
    const out: (JsonRpcResult | JsonRpcError)[] = heads.map((p) => ({
      id: p.id,
      result: `0x${head!.toString(16)}`,
    }))
    for (const [i, p] of others.entries()) out.push(toResult(p.id, answers[i]!))
    return out
  }
}

interface LegacyPayload {
  jsonrpc?: string
  id: number | string
  method: string
  params?: unknown[]
}
type LegacyCallback = (error: Error | null, answer?: unknown) => void

/** A `sendAsync(payload, callback)` provider on a pool (eth-connect's RequestManager takes one). */
export function legacyProvider(pool: ProviderPool) {
  return {
    sendAsync(payload: LegacyPayload | LegacyPayload[], callback: LegacyCallback): void {
      const payloads = Array.isArray(payload) ? payload : [payload]
      pool
        .send(payloads.map((p) => ({ method: p.method, params: p.params ?? [] })))
        .then((answers) => {
          const out = payloads.map((p, i) => ({ jsonrpc: '2.0', id: p.id, ...answers[i] }))
          if (!Array.isArray(payload) && out[0]!.error) {
            const { error } = out[0]!
            callback(Object.assign(new Error(error!.message), error))
          } else callback(null, Array.isArray(payload) ? out : out[0])
        })
        .catch((error: Error) => callback(error))
    },
  }
}
