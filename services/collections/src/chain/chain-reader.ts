import {
  type ChainIdentity,
  PoolProvider,
  ProviderPool,
  ProvidersBehind,
  ProvidersUnavailable,
  splitRpcUrls,
} from '@genesis/common'
import { Contract, Interface, isError } from 'ethers'
import { contractRefused, rpcUnavailable } from '../errors.js'

/** What the service asks the chain. Absent (null) when no RPC_URL is configured. */
export interface ChainReader {
  /** True when a contract is deployed at the address. */
  hasCode(address: string): Promise<boolean>
  /** True when the registry has a receipt for this cheque digest, i.e. its slots were consumed. */
  chequeWasConsumed(thirdPartyId: string, messageHash: string): Promise<boolean>
  /** The collection contract's `isApproved()`: the committee's approval on chain (false where no code is). */
  isApproved(collectionAddress: string): Promise<boolean>
  /**
   * The collection contract's `owner()`, lower-case: who deployed it through the factory. Null where no
   * code is, or where the contract has no such view (it reverts or answers something else).
   */
  contractOwner(collectionAddress: string): Promise<string | null>
  /** The registry's `isThirdPartyManager(thirdPartyId, address)`: who manages a third party is decided there. */
  isThirdPartyManager(thirdPartyId: string, address: string): Promise<boolean>
  /** The chain the providers serve (its id and genesis hash). */
  chain(): Promise<ChainIdentity>
  destroy(): void
}

export interface ChainReaderConfig {
  /** RPC_URL: one provider URL or a comma-separated list of providers of the chain. */
  rpcUrl: string
  chainId: number
  timeoutMs: number
  registryAddress: string
}

/**
 * The registry view this service reads: the quantity recorded for a consumed cheque, keyed like the
 * contract's `receipts` mapping (third party id, EIP-712 digest); 0 while it is unconsumed.
 */
export const REGISTRY_ABI = [
  'function receipts(string _thirdPartyId, bytes32 _messageHash) view returns (uint256)',
  // Decentraland's Third Party Registry's own view (V1 and V2)
  'function isThirdPartyManager(string _thirdPartyId, address _manager) view returns (bool)',
] as const

/** The collection contract's views: its approval (ERC721CollectionV2's `isApproved`) and its `owner`. */
export const COLLECTION_ABI = [
  'function isApproved() view returns (bool)',
  'function owner() view returns (address)',
] as const
const collection = new Interface(COLLECTION_ABI)

/** A revert is the contract's answer, not the node's failure. */
const isRevert = (error: unknown) => isError(error, 'CALL_EXCEPTION')

/**
 * What a client is told of a node that could not answer: the reason, without the providers' hosts, and
 * without ethers' full text (it carries the call's data and the request): its short message at most.
 */
function unavailableReason(error: unknown): string {
  if (error instanceof ProvidersUnavailable) return 'no provider answered'
  if (error instanceof ProvidersBehind) return 'the providers are behind the chain'
  const short = (error as { shortMessage?: unknown } | null)?.shortMessage
  return typeof short === 'string' ? short : 'the node answered with an error'
}

/** ethers' own account of an error, for the log (the error's cause), never for the client. */
const libraryText = (error: unknown) =>
  error instanceof Error ? error.message.slice(0, 2000) : String(error).slice(0, 2000)

export function createChainReader(config: ChainReaderConfig): ChainReader {
  // The providers of RPC_URL behind one pool: the healthiest answers, another if it fails or times out,
  // and none that lags the others (a contract deployed, or a cheque consumed, a moment ago would read as
  // not there). PoolProvider fixes the network (no start-up probing that would retry forever while the
  // node is down) and keeps no response cache: ethers reuses an answer (or a failure) for 250 ms by
  // default, so a contract deployed or a node back within that window would still read as missing or down.
  const pool = new ProviderPool({
    urls: splitRpcUrls(config.rpcUrl),
    name: 'RPC_URL',
    timeoutMs: config.timeoutMs,
  })
  const provider = new PoolProvider(pool, config.chainId, { batchMaxCount: 1, batchStallTime: 0 })
  const registry = new Contract(config.registryAddress, REGISTRY_ABI, provider)
  const receipts = registry.getFunction('receipts')
  const isThirdPartyManager = registry.getFunction('isThirdPartyManager')

  const ask = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call()
    } catch (error) {
      // A revert is the contract's answer, not the node's failure: said in our words, ethers' in the log.
      const refusal = isRevert(error) ? contractRefused(what) : rpcUnavailable(what, unavailableReason(error))
      refusal.cause = libraryText(error)
      throw refusal
    }
  }

  return {
    hasCode: (address) => ask('eth_getCode', async () => (await provider.getCode(address)) !== '0x'),
    chequeWasConsumed: (thirdPartyId, messageHash) =>
      ask('eth_call receipts', async () => {
        const qty: bigint = await receipts.staticCall(thirdPartyId, messageHash)
        return qty > 0n
      }),
    isApproved: (address) =>
      ask('eth_call isApproved', async () => {
        const data = await provider.call({ to: address, data: collection.encodeFunctionData('isApproved') })
        // no contract there (yet): nothing approved
        if (data === '0x') return false
        return collection.decodeFunctionResult('isApproved', data)[0] === true
      }),
    contractOwner: (address) =>
      ask('eth_call owner', async () => {
        let data: string
        try {
          data = await provider.call({ to: address, data: collection.encodeFunctionData('owner') })
        } catch (error) {
          if (isRevert(error)) return null
          throw error
        }
        if (data.length !== 66) return null
        return String(collection.decodeFunctionResult('owner', data)[0]).toLowerCase()
      }),
    isThirdPartyManager: (thirdPartyId, address) =>
      ask('eth_call isThirdPartyManager', async () => {
        const manager: boolean = await isThirdPartyManager.staticCall(thirdPartyId, address)
        return manager
      }),
    chain: () => pool.chain(),
    destroy: () => provider.destroy(),
  }
}
