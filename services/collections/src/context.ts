import type { Sql } from '@genesis/common'
import type { TypedDataDomain } from 'ethers'
import { type ChainReader, createChainReader } from './chain/chain-reader.js'
import { type CollectionsConfig, parseAddressList } from './config.js'
import { registryDomain } from './domain/cheque.js'

/** Everything a route needs besides the request: built once per app. */
export interface ServiceContext {
  sql: Sql
  config: CollectionsConfig
  committee: ReadonlySet<string>
  /** Null when RPC_URL is not configured: no deployment or cheque checks on chain. */
  chain: ChainReader | null
  registryDomain: TypedDataDomain
  now: () => Date
}

export function createContext(
  sql: Sql,
  config: CollectionsConfig,
  chain?: ChainReader | null,
): ServiceContext {
  return {
    sql,
    config,
    committee: new Set(parseAddressList(config.COMMITTEE_ADDRESSES)),
    chain:
      chain !== undefined
        ? chain
        : config.RPC_URL
          ? createChainReader({
              rpcUrl: config.RPC_URL,
              chainId: config.THIRD_PARTY_REGISTRY_CHAIN_ID,
              timeoutMs: config.RPC_TIMEOUT_MS,
              registryAddress: config.THIRD_PARTY_REGISTRY_ADDRESS,
            })
          : null,
    registryDomain: registryDomain({
      name: config.THIRD_PARTY_REGISTRY_NAME,
      address: config.THIRD_PARTY_REGISTRY_ADDRESS,
      chainId: config.THIRD_PARTY_REGISTRY_CHAIN_ID,
    }),
    now: () => new Date(),
  }
}
