import type { Logger, Sql } from '@genesis/common'
import type { Config } from '../config.js'
import { ChainIndexer, type IndexerOptions } from './indexer.js'

/** The indexer the configuration asks for, or null without LAND_RPC_URL (not started). */
export function indexerFromConfig(
  sql: Sql,
  config: Config,
  logger: Logger,
  extra: Pick<IndexerOptions, 'metrics' | 'onChange' | 'onBatch' | 'onRefused'> = {},
): ChainIndexer | null {
  if (!config.LAND_RPC_URL) return null
  return new ChainIndexer({
    sql,
    rpcUrl: config.LAND_RPC_URL,
    contracts: {
      land: config.LAND_REGISTRY_ADDRESS!.toLowerCase(),
      estates: config.ESTATE_REGISTRY_ADDRESS!.toLowerCase(),
      marketplace: config.MARKETPLACE_ADDRESS!.toLowerCase(),
    },
    startBlock: BigInt(config.LAND_START_BLOCK),
    confirmations: config.LAND_CONFIRMATIONS,
    pollMs: config.LAND_POLL_MS,
    maxBlockRange: config.LAND_MAX_BLOCK_RANGE,
    rpcTimeoutMs: config.LAND_RPC_TIMEOUT_MS,
    developmentChain: config.LAND_DEV_CHAIN,
    logger,
    ...extra,
  })
}
