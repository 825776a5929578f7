import { type LandContract, landEventSignature } from '@genesis/contracts/land'
import { EventFragment } from 'ethers'
import { type EventKind, handlers, type KindsEvent } from './handlers/index.js'
import { LogArgs } from './log-args.js'

/*
 * Logs → events. The events followed are the keys of the handler table (src/indexer/handlers/index.ts),
 * `Contract:Event`, each decoded with the signature @genesis/contracts gives for it (Decentraland's own, so
 * the real contracts are followed unchanged): adding an event is adding its handler to the table.
 */

/** A log as eth_getLogs returns it (hex strings). */
export interface RpcLog {
  address: string
  topics: string[]
  data: string
  blockNumber: string
  blockHash: string
  transactionHash: string
  logIndex: string
  removed?: boolean
}

/** An event of the table, with its kind (`EstateRegistry:AddLand`) and the fields its handler decodes. */
export type ChainEvent = { [Kind in EventKind]: { kind: Kind } & KindsEvent<Kind> }[EventKind]

/** Where an event happened. */
export interface EventWhere {
  block: bigint
  /** Block time, ms since epoch. */
  time: number
  txHash: string
  /** The emitting contract, lower-case. */
  address: string
}

/** An event with where it happened. */
export interface Located extends EventWhere {
  event: ChainEvent
}

export interface Contracts {
  land: string
  estates: string
  marketplace: string
}

/** The address each contract of the table is followed at. */
const CONTRACT_ADDRESS = {
  LANDRegistry: 'land',
  EstateRegistry: 'estates',
  Marketplace: 'marketplace',
} as const satisfies Record<LandContract, keyof Contracts>

interface Route {
  kind: EventKind
  fragment: EventFragment
  topics: number
}

/** The table's events by the contract that emits them, then by topic0. */
const ROUTES = new Map<keyof Contracts, Map<string, Route>>()
for (const kind of Object.keys(handlers) as EventKind[]) {
  const signature = landEventSignature(kind)
  if (!signature) throw new Error(`land indexer: @genesis/contracts has no event ${kind}`)
  const fragment = EventFragment.from(signature)
  const contract = CONTRACT_ADDRESS[kind.split(':')[0] as LandContract]
  const byTopic = ROUTES.get(contract) ?? new Map<string, Route>()
  ROUTES.set(
    contract,
    byTopic.set(fragment.topicHash, { kind, fragment, topics: 1 + indexedCount(fragment) }),
  )
}
function indexedCount(fragment: EventFragment): number {
  return fragment.inputs.filter((input) => input.indexed).length
}

/** topic0 of every event followed (the eth_getLogs filter). */
export const TOPICS: string[] = [...new Set([...ROUTES.values()].flatMap((byTopic) => [...byTopic.keys()]))]

/**
 * The event a log carries, or null when it is not one the indexer follows (another event of these contracts,
 * or another event of the same topic: an ERC-20 Transfer has one topic fewer) or cannot be decoded (then
 * the caller counts it as skipped). Addresses come out lower-case.
 */
export function decodeLog(log: RpcLog, contracts: Contracts): ChainEvent | null {
  const address = log.address.toLowerCase()
  const contract = (Object.keys(contracts) as (keyof Contracts)[]).find((c) => contracts[c] === address)
  const route = contract && ROUTES.get(contract)?.get(log.topics[0]?.toLowerCase() ?? '')
  if (!route || log.topics.length !== route.topics) return null
  const args = LogArgs.decode(route.fragment, log.topics, log.data)
  return { kind: route.kind, ...handlers[route.kind].decode(args) } as ChainEvent
}

/** The logs of a batch as the handlers take them: decoded, in block and log order, with where they happened. */
export interface DecodedBatch {
  events: Located[]
  /** Logs of the contracts' topics that could not be decoded (counted as skipped). */
  undecodable: number
}

/**
 * Decodes a batch's logs in block and log order, each with its block's time (`headers`: the blocks read in
 * the same step). A log whose block hash differs from its header's (the chain moved while it was being
 * read) fails the whole batch, which is read again.
 */
export function decodeLogs(
  logs: readonly RpcLog[],
  headers: ReadonlyMap<bigint, { hash: string; timestamp: number }>,
  contracts: Contracts,
): DecodedBatch {
  const sorted = [...logs].sort(
    (a, b) =>
      Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) ||
      Number(BigInt(a.logIndex) - BigInt(b.logIndex)),
  )
  const events: Located[] = []
  let undecodable = 0
  for (const log of sorted) {
    const block = BigInt(log.blockNumber)
    const header = headers.get(block)
    if (log.removed || header?.hash !== log.blockHash.toLowerCase()) {
      throw new Error(`the chain moved while reading block ${block}`)
    }
    let event: ChainEvent | null
    try {
      event = decodeLog(log, contracts)
    } catch {
      undecodable++
      continue
    }
    if (!event) continue
    events.push({
      event,
      block,
      time: header.timestamp * 1000,
      txHash: log.transactionHash.toLowerCase(),
      address: log.address.toLowerCase(),
    })
  }
  return { events, undecodable }
}
