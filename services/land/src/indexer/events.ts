import { AbiCoder, Interface } from 'ethers'

/**
 * Decentraland's own event signatures (LANDRegistry, EstateRegistry, Marketplace), so the indexer follows the
 * real contracts unchanged. `string` fields are declared `bytes` here (same ABI encoding, same topic hash
 * computed from the string signature below): the indexer checks UTF-8 itself instead of letting a bad
 * string throw inside the decoder
 * (`src/domain/land-data.ts` reads it).
 */
const SIGNATURES = {
  Transfer: 'event Transfer(address indexed from, address indexed to, uint256 indexed assetId)',
  Update:
    'event Update(uint256 indexed assetId, address indexed holder, address indexed operator, string data)',
  CreateEstate: 'event CreateEstate(address indexed _owner, uint256 indexed _estateId, string _data)',
  AddLand: 'event AddLand(uint256 indexed _estateId, uint256 indexed _landId)',
  RemoveLand:
    'event RemoveLand(uint256 indexed _estateId, uint256 indexed _landId, address indexed _destinatary)',
  OrderCreated:
    'event OrderCreated(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 priceInWei, uint256 expiresAt)',
  OrderSuccessful:
    'event OrderSuccessful(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 totalPrice, address indexed buyer)',
  OrderCancelled:
    'event OrderCancelled(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress)',
} as const
type EventName = keyof typeof SIGNATURES

const abi = new Interface(Object.values(SIGNATURES))
/** topic0 of each event. */
export const TOPICS: Record<EventName, string> = Object.fromEntries(
  Object.keys(SIGNATURES).map((name) => [name, abi.getEvent(name)!.topicHash]),
) as Record<EventName, string>

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

export type ChainEvent =
  | { kind: 'LandTransfer'; from: string; to: string; tokenId: bigint }
  | { kind: 'LandUpdate'; tokenId: bigint; data: Uint8Array }
  | { kind: 'EstateTransfer'; from: string; to: string; estateId: bigint }
  | { kind: 'EstateUpdate'; estateId: bigint; data: Uint8Array }
  | { kind: 'CreateEstate'; owner: string; estateId: bigint; data: Uint8Array }
  | { kind: 'AddLand'; estateId: bigint; tokenId: bigint }
  | { kind: 'RemoveLand'; estateId: bigint; tokenId: bigint; destinatary: string }
  | {
      kind: 'OrderCreated'
      orderId: string
      assetId: bigint
      seller: string
      nftAddress: string
      priceInWei: bigint
      expiresAt: bigint
    }
  | {
      kind: 'OrderSuccessful'
      orderId: string
      assetId: bigint
      seller: string
      nftAddress: string
      totalPrice: bigint
      buyer: string
    }
  | { kind: 'OrderCancelled'; orderId: string; assetId: bigint; seller: string; nftAddress: string }

/** An event with where it happened. */
export interface Located {
  event: ChainEvent
  block: bigint
  /** Block time, ms since epoch. */
  time: number
  txHash: string
  /** The emitting contract, lower-case. */
  address: string
}

export interface Contracts {
  land: string
  estates: string
  marketplace: string
}

const coder = AbiCoder.defaultAbiCoder()
const word = (topic: string | undefined): bigint => {
  if (topic === undefined || !/^0x[0-9a-fA-F]{64}$/.test(topic)) throw new Error('malformed topic')
  return BigInt(topic)
}
const addressOf = (topic: string | undefined): string =>
  `0x${word(topic).toString(16).padStart(40, '0')}`.slice(-42)

/**
 * The event a log carries, or null when it is not one the indexer follows (another event of these contracts)
 * or cannot be decoded (then the caller counts it as skipped). Addresses come out lower-case.
 */
export function decodeLog(log: RpcLog, contracts: Contracts): ChainEvent | null {
  const address = log.address.toLowerCase()
  const [topic0, t1, t2, t3] = log.topics
  const topic = topic0?.toLowerCase()
  if (address === contracts.land || address === contracts.estates) {
    const land = address === contracts.land
    if (topic === TOPICS.Transfer && log.topics.length === 4) {
      const from = addressOf(t1)
      const to = addressOf(t2)
      return land
        ? { kind: 'LandTransfer', from, to, tokenId: word(t3) }
        : { kind: 'EstateTransfer', from, to, estateId: word(t3) }
    }
    if (topic === TOPICS.Update && log.topics.length === 4) {
      const [data] = coder.decode(['bytes'], log.data)
      const bytes = bytesOf(data)
      return land
        ? { kind: 'LandUpdate', tokenId: word(t1), data: bytes }
        : { kind: 'EstateUpdate', estateId: word(t1), data: bytes }
    }
    if (land) return null
    if (topic === TOPICS.CreateEstate && log.topics.length === 3) {
      const [data] = coder.decode(['bytes'], log.data)
      return { kind: 'CreateEstate', owner: addressOf(t1), estateId: word(t2), data: bytesOf(data) }
    }
    if (topic === TOPICS.AddLand && log.topics.length === 3) {
      return { kind: 'AddLand', estateId: word(t1), tokenId: word(t2) }
    }
    if (topic === TOPICS.RemoveLand && log.topics.length === 4) {
      return { kind: 'RemoveLand', estateId: word(t1), tokenId: word(t2), destinatary: addressOf(t3) }
    }
    return null
  }
  if (address === contracts.marketplace) {
    if (topic === TOPICS.OrderCreated && log.topics.length === 3) {
      const [id, nft, price, expires] = coder.decode(['bytes32', 'address', 'uint256', 'uint256'], log.data)
      return {
        kind: 'OrderCreated',
        orderId: String(id).toLowerCase(),
        assetId: word(t1),
        seller: addressOf(t2),
        nftAddress: String(nft).toLowerCase(),
        priceInWei: BigInt(price),
        expiresAt: BigInt(expires),
      }
    }
    if (topic === TOPICS.OrderSuccessful && log.topics.length === 4) {
      const [id, nft, total] = coder.decode(['bytes32', 'address', 'uint256'], log.data)
      return {
        kind: 'OrderSuccessful',
        orderId: String(id).toLowerCase(),
        assetId: word(t1),
        seller: addressOf(t2),
        nftAddress: String(nft).toLowerCase(),
        totalPrice: BigInt(total),
        buyer: addressOf(t3),
      }
    }
    if (topic === TOPICS.OrderCancelled && log.topics.length === 3) {
      const [id, nft] = coder.decode(['bytes32', 'address'], log.data)
      return {
        kind: 'OrderCancelled',
        orderId: String(id).toLowerCase(),
        assetId: word(t1),
        seller: addressOf(t2),
        nftAddress: String(nft).toLowerCase(),
      }
    }
  }
  return null
}

const bytesOf = (hex: unknown): Uint8Array => Buffer.from(String(hex).slice(2), 'hex')

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
