import type { Sql } from '@genesis/common'
import type { TypedDataDomain } from 'ethers'
import { type ChainReader, createChainReader } from './chain/chain-reader.js'
import { type Config, parseAddressList } from './config.js'
import { answersVersion } from './db/answers-version.js'
import { AnswerCache } from './domain/answer-cache.js'
import { registryDomain } from './domain/cheque.js'
import { type Committee, committeeOf } from './domain/dev-committee.js'
import { freshRead } from './domain/fresh-read.js'

/** Everything a route needs besides the request: built once per app, from the configuration. */
export interface Context {
  sql: Sql
  config: Config
  /** The committee's addresses, lower-case. */
  committee: ReadonlySet<string>
  /** Where the committee came from, for the start log. */
  committeeSource: Committee
  /** Null when RPC_URL is not configured: no deployment, cheque or approval checks on chain. */
  chain: ChainReader | null
  registryDomain: TypedDataDomain
  now: () => Date
  /** This replica's serialised list answers, kept per answers version. */
  answers: AnswerCache
  /** The answers version as of after the call: one read shared by the requests that wait on it. */
  answersVersion: () => Promise<number>
}

/**
 * The committee from COMMITTEE_ADDRESSES, else the development member (`committeeOf`); the chain reader
 * from RPC_URL; `overrides` replaces any part (tests).
 */
export async function createContext(
  sql: Sql,
  config: Config,
  overrides: Partial<Context> = {},
): Promise<Context> {
  const committeeSource = overrides.committeeSource ?? (await committeeOf(config))
  return {
    sql,
    config,
    committee: overrides.committee ?? new Set(parseAddressList(committeeSource.addresses)),
    committeeSource,
    chain: overrides.chain !== undefined ? overrides.chain : chainReaderOf(config),
    registryDomain: overrides.registryDomain ?? registryDomainOf(config),
    now: overrides.now ?? (() => new Date()),
    answers: overrides.answers ?? new AnswerCache(),
    answersVersion: overrides.answersVersion ?? freshRead(() => answersVersion(sql)),
  }
}

/** The EIP-712 domain of the configured Third Party Registry, which cheques are signed over. */
export const registryDomainOf = (config: Config): TypedDataDomain =>
  registryDomain({
    name: config.THIRD_PARTY_REGISTRY_NAME,
    address: config.THIRD_PARTY_REGISTRY_ADDRESS,
    chainId: config.THIRD_PARTY_REGISTRY_CHAIN_ID,
  })

const chainReaderOf = (config: Config): ChainReader | null =>
  config.RPC_URL
    ? createChainReader({
        rpcUrl: config.RPC_URL,
        chainId: config.THIRD_PARTY_REGISTRY_CHAIN_ID,
        timeoutMs: config.RPC_TIMEOUT_MS,
        registryAddress: config.THIRD_PARTY_REGISTRY_ADDRESS,
      })
    : null
