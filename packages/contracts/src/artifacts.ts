import { readFileSync } from 'node:fs'
import { type InterfaceAbi, keccak256 } from 'ethers'

/** What scripts/compile.mjs writes for each contract (dist/artifacts/<name>.json). */
export interface Artifact {
  contractName: ContractName
  abi: InterfaceAbi
  /** Init code (constructor included), 0x-hex. */
  bytecode: string
  deployedBytecode: string
}

export type ContractName =
  | 'Collection'
  | 'CollectionFactory'
  | 'ContractWallet'
  | 'EstateRegistry'
  | 'LANDRegistry'
  | 'MANAToken'
  | 'Marketplace'
  | 'RewardsDispenser'
  | 'ThirdPartyRegistry'

const cache = new Map<ContractName, Artifact>()

/** The compiled artefact of one of our contracts (built by `pnpm build` of this package). */
export function artifact(name: ContractName): Artifact {
  let found = cache.get(name)
  if (!found) {
    // dist/artifacts beside dist/artifacts.js; from src (tests through vitest) the same relative path in dist
    const url = import.meta.url.includes('/dist/')
      ? new URL(`./artifacts/${name}.json`, import.meta.url)
      : new URL(`../dist/artifacts/${name}.json`, import.meta.url)
    found = JSON.parse(readFileSync(url, 'utf8')) as Artifact
    cache.set(name, found)
  }
  return found
}

/**
 * keccak256 of the collection init code: what the collections service needs as COLLECTION_INIT_CODE_HASH so
 * that its `contract_address` is where CollectionFactory deploys.
 */
export const collectionInitCodeHash = (): string => keccak256(artifact('Collection').bytecode)
