import { describeChain as describeGenesis, sameChain as sameGenesis } from '@genesis/common'
import type { ChainIdentity } from '../db/chain-state.js'
import type { Contracts } from './events.js'
import type { Rpc } from './rpc.js'

/** The chain behind LAND_RPC_URL, and the node's software (which tells a development node). */
export interface NodeChain extends ChainIdentity {
  client: string
}

/** The chain the providers agree on (chain id and genesis: @genesis/common's ProviderPool), and the node's software. */
export async function nodeChain(rpc: Rpc, contracts: Contracts): Promise<NodeChain> {
  const [chain, client] = await Promise.all([rpc.identity(), rpc.clientVersion()])
  return { chainId: chain.chainId, genesisHash: chain.genesisHash, ...contracts, client }
}

/** Chain ids no public network uses: development nodes' defaults (anvil and hardhat, ganache and geth --dev). */
const DEVELOPMENT_CHAIN_IDS = new Set(['31337', '1337'])

/**
 * A chain whose data may be thrown away and indexed again without asking: a development node (anvil,
 * hardhat, ganache; they keep no state between runs), unless `flag` (LAND_DEV_CHAIN) says otherwise.
 */
export const isDevelopmentChain = (node: NodeChain, flag?: boolean): boolean =>
  flag ?? (DEVELOPMENT_CHAIN_IDS.has(node.chainId) || /^(anvil|hardhat|ganache)/i.test(node.client))

const sameChain = (a: ChainIdentity, b: ChainIdentity) =>
  sameGenesis(a, b) && a.land === b.land && a.estates === b.estates && a.marketplace === b.marketplace

export const describeChain = (c: ChainIdentity) => `${describeGenesis(c)}, LAND registry ${c.land}`

/** What the database holds, beside the identity it recorded. */
export interface StoreState {
  stored: ChainIdentity | null
  /** Whether the cursor's block is the node's block of that number (null: no cursor). */
  cursorOnChain: boolean | null
  /** Owners, estates or listings are present. */
  holdsData: boolean
}

/** What to do with the database before indexing: go on, record the chain, empty it and start again, or refuse. */
export type Verdict =
  | { action: 'go' }
  | { action: 'record' }
  | { action: 'reindex'; previous: string }
  | { action: 'refuse'; reason: string }

const RESET =
  'run `pnpm --filter @genesis/land reindex` with the same environment to empty it (the layout stays)'

/**
 * A land that follows a chain starts from that chain alone: data of another chain is emptied on a
 * development chain and refused elsewhere; owners, estates or listings that no chain brought (seeded or
 * imported) are refused. A database indexed before chains were recorded is adopted when its cursor is on
 * this chain.
 */
export function judgeStore(state: StoreState, node: NodeChain, development: boolean): Verdict {
  const { stored, cursorOnChain, holdsData } = state
  if (stored && sameChain(stored, node)) return { action: 'go' }
  if (!stored && cursorOnChain === true) return { action: 'record' }
  if (!stored && cursorOnChain === null) {
    if (!holdsData) return { action: 'record' }
    return {
      action: 'refuse',
      reason:
        'land: the database holds owners, estates or listings that did not come from the chain (seeded or imported), ' +
        `and a land that follows a chain starts from that chain alone: ${RESET}, or give the chain its own database`,
    }
  }
  const previous = stored ? describeChain(stored) : 'a chain whose blocks this node does not have'
  if (development) return { action: 'reindex', previous }
  return {
    action: 'refuse',
    reason:
      `land: the database holds the data of another chain (${previous}) than LAND_RPC_URL's ` +
      `(${describeChain(node)}): ${RESET}, or give this chain its own database`,
  }
}
