import { artifact, encodeTokenId } from '@genesis/contracts'
import { getAddress, Interface, parseEther, toBeHex } from 'ethers'
import { writeLandData } from '../../src/domain/land-data.js'
import { Rpc } from '../../src/indexer/rpc.js'
import type { SeedSet } from '../../src/seed/genesis-city.js'

/** The local chain's contracts, spoken through their compiled ABIs (the demo writer calls their functions). */
const LAND = new Interface(artifact('LANDRegistry').abi)
const ESTATE = new Interface(artifact('EstateRegistry').abi)
const MARKET = new Interface(artifact('Marketplace').abi)
const CREATE_ESTATE_TOPIC = ESTATE.getEvent('CreateEstate')!.topicHash

export interface DemoAddresses {
  landRegistry: string
  estateRegistry: string
  marketplace: string
}

export interface DemoSummary {
  parcels: number
  names: number
  estates: number
  orders: number
  transactions: number
  /** Blocks the writer mined. */
  blocks: number
}

export interface DemoWriteOptions {
  progress?: (step: string, done: number, total: number) => void
  /**
   * At most this many transactions a block. 0 (the default): as many as the block's gas limit holds. 1: a
   * block per transaction, as anvil's automine does (the same events, over as many blocks as transactions).
   */
  txsPerBlock?: number
}

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/** One transaction to send. Without `gas`, it is estimated on the latest block before sending. */
interface Call {
  from: string
  to: string
  data: string
  gas?: bigint
  /** Says what it was in an error. */
  label: string
}

interface RpcLog {
  address: string
  topics: string[]
}
interface RpcReceipt {
  transactionHash: string
  blockNumber: string
  status: string
  gasUsed: string
  logs: RpcLog[]
}

// Osaka's per-transaction gas cap (EIP-7825): no limit we give may exceed it.
const TX_GAS_CAP = 1n << 24n
// assignMultipleParcels costs ~25,500 gas a parcel (a mint and its Transfer log) and ~47,000 more for the
// call; with negative coordinates (non-zero calldata bytes) ~1,000 more a parcel. A limit well above that,
// so that no estimate is needed; every receipt's status is checked, so a limit too low is an error.
const assignGas = (parcels: number) => 60_000n + 30_000n * BigInt(parcels)
// Calls handled at once: their gas estimates go in one batch.
const WINDOW = 200

/**
 * Sends transactions without waiting for each, a block's worth at a time, and mines that block itself
 * (evm_mine). Explicit nonces per sender; one gas price for all, so that a block keeps the order they were
 * sent in. A block gets only as many transactions as its gas limit holds by their gas limits: anvil skips a
 * transaction that does not fit and then drops the same sender's later ones (their nonce is too high), so
 * none may be left over. Every mined block's receipts are read and each of ours must have succeeded.
 */
class Pipeline {
  transactions = 0
  blocks = 0
  private readonly nonces = new Map<string, number>()
  /** The next block's calls, not sent yet. */
  private block: Array<{ call: Call; gas: bigint }> = []
  private blockGasSum = 0n
  /** The calls whose receipts settle answers (to read an estate's id, say), and those receipts. */
  private readonly wanted = new Set<Call>()
  private readonly kept = new Map<Call, RpcReceipt>()

  constructor(
    private readonly rpc: Rpc,
    private readonly gasPrice: bigint,
    private readonly baseFee: bigint,
    private readonly blockGas: bigint,
    private readonly perBlock: number,
  ) {}

  /** Nonces for the calls, in their order: a new sender's next one is read once, then counted here. */
  private async noncesFor(calls: Call[]): Promise<number[]> {
    const fresh = [...new Set(calls.map((c) => c.from))].filter((from) => !this.nonces.has(from))
    const counts = await this.rpc.batch<string>(
      fresh.map((from) => ({ method: 'eth_getTransactionCount', params: [from, 'pending'] })),
    )
    for (const [i, from] of fresh.entries()) this.nonces.set(from, Number(counts[i]))
    return calls.map((call) => {
      const next = this.nonces.get(call.from)!
      this.nonces.set(call.from, next + 1)
      return next
    })
  }

  /** Gas limits for the calls: theirs, or the estimate on the latest block with a margin. */
  private async gasOf(calls: Call[]): Promise<bigint[]> {
    const estimating = calls.filter((call) => call.gas === undefined)
    const estimates = new Map<Call, bigint>()
    try {
      const answers = await this.rpc.batch<string>(
        estimating.map((call) => ({
          method: 'eth_estimateGas',
          params: [{ from: call.from, to: call.to, data: call.data }, 'latest'],
        })),
      )
      for (const [i, call] of estimating.entries()) estimates.set(call, (BigInt(answers[i]!) * 5n) / 4n)
    } catch (error) {
      // one failing estimate fails the batch: find which, for the message
      for (const call of estimating) {
        await this.rpc
          .call('eth_estimateGas', [{ from: call.from, to: call.to, data: call.data }, 'latest'])
          .catch((e: Error) => {
            throw new Error(`demo writer: ${call.label} would fail: ${e.message}`)
          })
      }
      throw error
    }
    const cap = TX_GAS_CAP < this.blockGas ? TX_GAS_CAP : this.blockGas
    return calls.map((call) => {
      const gas = call.gas ?? estimates.get(call)!
      return gas < cap ? gas : cap
    })
  }

  /**
   * Queues the calls in order, sending and mining each block as it fills up; the last one waits for more
   * calls or settle(). Estimates are made on the latest block, so the calls of one send must not depend on
   * each other (nor on calls not settled yet). `keep`: settle answers these calls' receipts.
   */
  async send(calls: Call[], keep = false): Promise<void> {
    for (const window of chunks(calls, WINDOW)) {
      const gas = await this.gasOf(window)
      for (const [i, call] of window.entries()) {
        const full =
          this.blockGasSum + gas[i]! > this.blockGas ||
          (this.perBlock > 0 && this.block.length >= this.perBlock)
        if (full) await this.flush()
        this.block.push({ call, gas: gas[i]! })
        this.blockGasSum += gas[i]!
        if (keep) this.wanted.add(call)
      }
    }
  }

  /** Sends the queued block's transactions, mines them and checks their receipts. */
  private async flush(): Promise<void> {
    const block = this.block
    this.block = []
    this.blockGasSum = 0n
    if (block.length === 0) return
    const nonces = await this.noncesFor(block.map((b) => b.call))
    const hashes = await this.rpc.batch<string>(
      block.map(({ call, gas }, i) => ({
        method: 'eth_sendTransaction',
        params: [
          {
            from: call.from,
            to: call.to,
            data: call.data,
            gas: toBeHex(gas),
            gasPrice: toBeHex(this.gasPrice),
            nonce: toBeHex(nonces[i]!),
          },
        ],
      })),
    )
    this.transactions += hashes.length
    // a full block raises the next base fee by 1/8: held where it was, so that the fixed gas price stays above it
    await this.rpc.call('anvil_setNextBlockBaseFeePerGas', [toBeHex(this.baseFee)])
    await this.rpc.call('evm_mine', [])
    this.blocks++
    const receipts = new Map(
      (await this.rpc.call<RpcReceipt[]>('eth_getBlockReceipts', ['latest'])).map((r) => [
        r.transactionHash,
        r,
      ]),
    )
    for (const [i, { call, gas }] of block.entries()) {
      const receipt = receipts.get(hashes[i]!)
      if (!receipt) {
        const pool = await this.rpc.call('txpool_status', [])
        throw new Error(
          `demo writer: ${call.label} (${hashes[i]}) is not in the block mined for it; pool ${JSON.stringify(pool)}`,
        )
      }
      if (Number(receipt.status) !== 1) {
        throw new Error(
          `demo writer: ${call.label} failed on chain (transaction ${receipt.transactionHash}, block ` +
            `${Number(receipt.blockNumber)}, gas used ${BigInt(receipt.gasUsed)} of ${gas})`,
        )
      }
      if (this.wanted.delete(call)) this.kept.set(call, receipt)
    }
  }

  /** Sends and mines what is queued; the receipts of the calls sent with `keep`. */
  async settle(): Promise<Map<Call, RpcReceipt>> {
    await this.flush()
    const kept = new Map(this.kept)
    this.kept.clear()
    return kept
  }
}

/**
 * Writes the demo set on a local chain (anvil): parcels assigned to their owners in batches, parcel names,
 * estates created by their owners, and the open, unexpired listings created by their sellers. The demo
 * owners have no keys: anvil impersonates them (anvil_impersonateAccount), so every event is the one a real
 * holder's transaction would emit. `admin` is the LAND registry's owner (impersonated too, so that no
 * transaction is signed here).
 *
 * Transactions are sent without waiting for each and the writer mines the blocks (automine is off meanwhile,
 * and back on after if it was on): many transactions a block, as on a real chain. Steps that depend on
 * earlier ones wait until those are mined: owners, names, estates created, parcels added to the large
 * estates, the marketplace's approvals, orders.
 */
export async function writeDemoOnChain(
  rpcUrl: string,
  admin: string,
  addresses: DemoAddresses,
  set: SeedSet,
  options: DemoWriteOptions = {},
): Promise<DemoSummary> {
  const rpc = new Rpc(rpcUrl, 120_000)
  const progress = options.progress ?? (() => {})
  const adminAddress = getAddress(admin)
  const automine = await rpc.call<boolean>('anvil_getAutomine', [])
  const latest = await rpc.call<{ gasLimit: string; baseFeePerGas?: string }>('eth_getBlockByNumber', [
    'latest',
    false,
  ])
  const baseFee = BigInt(latest.baseFeePerGas ?? 0)
  const minPrice = 1_000_000_000n
  const pipeline = new Pipeline(
    rpc,
    2n * baseFee > minPrice ? 2n * baseFee : minPrice,
    baseFee,
    BigInt(latest.gasLimit),
    options.txsPerBlock ?? 0,
  )
  await rpc.call('anvil_impersonateAccount', [adminAddress])
  await rpc.call('evm_setAutomine', [false])
  try {
    return await write(rpc, pipeline, adminAddress, addresses, set, progress)
  } finally {
    if (automine) await rpc.call('evm_setAutomine', [true])
    await rpc.call('anvil_stopImpersonatingAccount', [adminAddress])
  }
}

async function write(
  rpc: Rpc,
  pipeline: Pipeline,
  admin: string,
  addresses: DemoAddresses,
  set: SeedSet,
  progress: (step: string, done: number, total: number) => void,
): Promise<DemoSummary> {
  const land = getAddress(addresses.landRegistry)
  const estateRegistry = getAddress(addresses.estateRegistry)
  const marketplace = getAddress(addresses.marketplace)
  const holder = new Map(set.parcels.map((p) => [`${p.x},${p.y}`, p.owner]))
  const estateCells = new Map<string, Array<{ x: number; y: number }>>()
  for (const p of set.parcels) {
    if (p.estate_id)
      estateCells.set(p.estate_id, [...(estateCells.get(p.estate_id) ?? []), { x: p.x, y: p.y }])
  }
  /** Queues the calls, telling progress (each call counts for `weight` items) a window at a time. */
  const queue = async (step: string, calls: Array<Call & { weight: number }>, keep = false) => {
    const total = calls.reduce((n, c) => n + c.weight, 0)
    let done = 0
    for (const window of chunks(calls, WINDOW)) {
      await pipeline.send(window, keep)
      done += window.reduce((n, c) => n + c.weight, 0)
      progress(step, done, total)
    }
  }

  // owners, in batches of one owner's parcels
  const byOwner = new Map<string, Array<{ x: number; y: number }>>()
  for (const p of set.parcels) if (p.owner) byOwner.set(p.owner, [...(byOwner.get(p.owner) ?? []), p])
  const assigns = [...byOwner].flatMap(([owner, cells]) =>
    chunks(cells, 400).map((batch) => ({
      from: admin,
      to: land,
      data: LAND.encodeFunctionData('assignMultipleParcels', [
        batch.map((c) => c.x),
        batch.map((c) => c.y),
        getAddress(owner),
      ]),
      gas: assignGas(batch.length),
      label: `assigning ${batch.length} parcels to ${owner}`,
      weight: batch.length,
    })),
  )
  await queue('parcels', assigns)
  await pipeline.settle()

  // names
  const named = set.parcels.filter((p) => p.name !== '' || p.description !== '')
  await queue(
    'names',
    chunks(named, 100).map((batch) => ({
      from: admin,
      to: land,
      data: LAND.encodeFunctionData('setLandDataBatch', [
        batch.map((p) => encodeTokenId(p.x, p.y)),
        batch.map((p) => writeLandData(p)),
      ]),
      label: `naming ${batch.length} parcels from ${batch[0]!.x},${batch[0]!.y}`,
      weight: batch.length,
    })),
  )
  await pipeline.settle()

  const impersonated = new Set<string>()
  const impersonate = async (addresses: string[]) => {
    const fresh = [...new Set(addresses)].filter((a) => !impersonated.has(a))
    await rpc.batch(
      fresh.flatMap((address) => [
        { method: 'anvil_impersonateAccount', params: [address] },
        { method: 'anvil_setBalance', params: [address, toBeHex(parseEther('10'))] },
      ]),
    )
    for (const address of fresh) impersonated.add(address)
  }

  // estates, each created by its owner from their parcels; only the parcels the estate's owner holds go in
  const estates: Array<{ id: string; owner: string; parts: Array<Array<{ x: number; y: number }>> }> = []
  for (const estate of set.estates) {
    const estateOwner = estate.owner
    if (estateOwner === null) continue
    const cells = (estateCells.get(estate.id) ?? []).filter(
      (c) => holder.get(`${c.x},${c.y}`) === estateOwner,
    )
    // a large estate in parts: one transaction pulling hundreds of parcels exceeds a block's gas
    if (cells.length > 0)
      estates.push({ id: estate.id, owner: getAddress(estateOwner), parts: chunks(cells, 100) })
  }
  await impersonate(estates.map((e) => e.owner))
  const creations = estates.map((estate) => {
    const first = estate.parts[0]!
    const record = set.estates.find((e) => e.id === estate.id)!
    return {
      from: estate.owner,
      to: estateRegistry,
      data: ESTATE.encodeFunctionData('createEstate', [
        first.map((c) => c.x),
        first.map((c) => c.y),
        estate.owner,
        writeLandData({ ...record, ipns: '' }),
      ]),
      label: `creating estate ${estate.id}`,
      weight: 1,
    }
  })
  await queue('estates', creations, true)
  const estateReceipts = await pipeline.settle()
  // the estate's id on chain, from its CreateEstate event (ids follow the order the estates were created in)
  const chainEstateId = new Map<string, bigint>()
  estates.forEach((estate, i) => {
    const log = estateReceipts
      .get(creations[i]!)
      ?.logs.find((l) => getAddress(l.address) === estateRegistry && l.topics[0] === CREATE_ESTATE_TOPIC)
    if (!log?.topics[2]) throw new Error(`demo writer: no CreateEstate event for estate ${estate.id}`)
    chainEstateId.set(estate.id, BigInt(log.topics[2]))
  })
  await pipeline.send(
    estates.flatMap((estate) =>
      estate.parts.slice(1).map((part) => ({
        from: estate.owner,
        to: estateRegistry,
        data: ESTATE.encodeFunctionData('addLand', [
          chainEstateId.get(estate.id)!,
          part.map((c) => c.x),
          part.map((c) => c.y),
        ]),
        label: `adding ${part.length} parcels to estate ${estate.id}`,
      })),
    ),
  )
  await pipeline.settle()

  // open listings that have not expired, by their sellers, once the seller has approved the marketplace
  const now = Date.now()
  const orders: Array<{ seller: string; nft: string; assetId: bigint; wei: bigint; expires: bigint }> = []
  for (const p of set.publications) {
    if (p.status !== 'open' || p.expires_at <= now) continue
    const nft = p.type === 'parcel' ? land : estateRegistry
    const [x, y] = p.asset_id.split(',')
    const assetId = p.type === 'parcel' ? encodeTokenId(Number(x), Number(y)) : chainEstateId.get(p.asset_id)
    if (assetId === undefined) continue
    orders.push({
      seller: getAddress(p.owner),
      nft,
      assetId,
      wei: parseEther(p.price.toFixed(6)),
      expires: BigInt(Math.floor(p.expires_at / 1000)),
    })
  }
  await impersonate(orders.map((o) => o.seller))
  const approvals = new Map<string, Call>()
  for (const o of orders) {
    const key = `${o.seller}:${o.nft}`
    if (!approvals.has(key))
      approvals.set(key, {
        from: o.seller,
        to: o.nft,
        data: LAND.encodeFunctionData('setApprovalForAll', [marketplace, true]),
        label: `approving the marketplace for ${key}`,
      })
  }
  await pipeline.send([...approvals.values()])
  await pipeline.settle()
  await queue(
    'orders',
    orders.map((o) => ({
      from: o.seller,
      to: marketplace,
      data: MARKET.encodeFunctionData('createOrder', [o.nft, o.assetId, o.wei, o.expires]),
      label: `listing ${o.nft}/${o.assetId} by ${o.seller}`,
      weight: 1,
    })),
  )
  await pipeline.settle()
  return {
    parcels: assigns.reduce((n, a) => n + a.weight, 0),
    names: named.length,
    estates: chainEstateId.size,
    orders: orders.length,
    transactions: pipeline.transactions,
    blocks: pipeline.blocks,
  }
}
