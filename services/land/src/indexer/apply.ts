import type { Queryable } from '@genesis/common'
import {
  type ChainRows,
  type EstateRow,
  loadChainRows,
  type OrderRow,
  type ParcelRow,
  type PublicationRow,
  type UndoImage,
  writeChainRows,
} from '../db/chain-writes.js'
import type { LandChanges } from '../db/land-changes.js'
import { GRID_MAX, GRID_MIN } from '../domain/geometry.js'
import { type ChainEvent, type Contracts, decodeTokenId, parseAssetData } from './events.js'

// The Genesis City grid (the parcels table's bounds): token ids outside it are not ours to show.
const MIN = BigInt(GRID_MIN)
const MAX = BigInt(GRID_MAX)
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`

/** Why an event was skipped: the label of the skipped-events counter. */
export type SkipReason =
  | 'token_outside_grid'
  | 'malformed_data'
  | 'order_other_nft'
  | 'malformed_order'
  | 'unknown_estate'
  | 'unknown_order'
  | 'duplicate_publication'
  | 'undecodable_log'

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

const parcelOf = (tokenId: bigint): { x: number; y: number } | null => {
  const { x, y } = decodeTokenId(tokenId)
  if (x < MIN || x > MAX || y < MIN || y > MAX) return null
  return { x: Number(x), y: Number(y) }
}

const cellKey = (x: number, y: number) => `${x},${y}`

const ownerOf = (address: string): string | null => (address === ZERO_ADDRESS ? null : address)

/** Wei → MANA (18 decimals), exact to the double nearest. */
const manaOf = (wei: bigint): number => Number(wei / 10n ** 18n) + Number(wei % 10n ** 18n) / 1e18

/** Decentraland's older orders wrote `expiresAt` in ms, newer ones in seconds. */
const expiresMs = (value: bigint): number | null => {
  const ms = value >= 10n ** 12n ? value : value * 1000n
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(ms)
}

/** The asset an order is for, or why it is skipped. */
function orderAsset(
  event: Extract<ChainEvent, { kind: 'OrderCreated' }>,
  contracts: Contracts,
): { type: 'parcel' | 'estate'; assetId: string } | SkipReason {
  if (event.nftAddress === contracts.land) {
    const parcel = parcelOf(event.assetId)
    if (!parcel) return 'token_outside_grid'
    return { type: 'parcel', assetId: cellKey(parcel.x, parcel.y) }
  }
  if (event.nftAddress === contracts.estates) return { type: 'estate', assetId: event.assetId.toString() }
  return 'order_other_nft'
}

/** Which rows a batch's events can read or change: loaded in a few queries before the fold. */
function keysOf(events: readonly Located[], contracts: Contracts) {
  const cells = new Map<string, { x: number; y: number }>()
  const estates = new Set<string>()
  const transferredEstates = new Set<string>()
  const txHashes = new Set<string>()
  const orderIds = new Set<string>()
  const assets = new Map<string, { type: string; assetId: string }>()
  const cell = (tokenId: bigint) => {
    const p = parcelOf(tokenId)
    if (p) cells.set(cellKey(p.x, p.y), p)
  }
  for (const { event, txHash } of events) {
    switch (event.kind) {
      case 'LandTransfer':
      case 'LandUpdate':
        cell(event.tokenId)
        break
      case 'AddLand':
      case 'RemoveLand':
        cell(event.tokenId)
        estates.add(event.estateId.toString())
        break
      case 'EstateTransfer':
        transferredEstates.add(event.estateId.toString())
        estates.add(event.estateId.toString())
        break
      case 'CreateEstate':
      case 'EstateUpdate':
        estates.add(event.estateId.toString())
        break
      case 'OrderCreated': {
        txHashes.add(txHash)
        orderIds.add(event.orderId)
        const asset = orderAsset(event, contracts)
        if (typeof asset !== 'string') assets.set(`${asset.type}|${asset.assetId}`, asset)
        break
      }
      case 'OrderSuccessful':
      case 'OrderCancelled':
        orderIds.add(event.orderId)
        break
    }
  }
  return {
    cells: [...cells.values()],
    estates: [...estates],
    transferredEstates: [...transferredEstates],
    txHashes: [...txHashes],
    orderIds: [...orderIds],
    assets: [...assets.values()],
  }
}

/**
 * A batch's rows in memory: read once, changed event by event exactly as one statement per event would have
 * changed them, and written back with a few set-based statements. Before the first change to a row in an
 * undoable block, the row's image at that moment goes to the undo log, as the per-event writes recorded it.
 */
class Fold {
  private readonly parcels = new Map<string, ParcelRow>()
  private readonly estates = new Map<string, EstateRow | null>()
  private readonly publications = new Map<string, PublicationRow | null>()
  private readonly orders = new Map<string, OrderRow | null>()
  /** Parcel keys by estate id (of the parcels loaded). */
  private readonly members = new Map<string, Set<string>>()
  /** Order ids by `type|asset_id` (of the orders loaded). */
  private readonly assetOrders = new Map<string, Set<string>>()
  private readonly changed = {
    parcels: new Set<string>(),
    estates: new Set<string>(),
    publications: new Set<string>(),
    orders: new Set<string>(),
  }
  private readonly undo: UndoImage[] = []
  private readonly remembered = new Set<string>()
  /** The block being applied, and whether its changes are remembered. */
  private block = 0n
  private undoable = false

  constructor(
    rows: ChainRows,
    /** The transaction's now(), as to_jsonb writes it (the `updated_at` of every changed row). */
    private readonly now: string,
  ) {
    for (const p of rows.parcels) this.putParcel(p)
    for (const e of rows.estates) this.estates.set(e.id, e)
    for (const p of rows.publications) this.publications.set(p.tx_hash, p)
    for (const o of rows.orders) this.putOrder(o)
  }

  at(block: bigint, undoable: boolean) {
    this.block = block
    this.undoable = undoable
  }

  private remember(tbl: UndoImage['tbl'], key: UndoImage['key'], id: string, before: object | null) {
    if (!this.undoable) return
    const seen = `${this.block}|${tbl}|${id}`
    if (this.remembered.has(seen)) return
    this.remembered.add(seen)
    this.undo.push({ block: this.block, tbl, key, before })
  }

  private putParcel(next: ParcelRow) {
    const key = cellKey(next.x, next.y)
    const prev = this.parcels.get(key)
    if (prev?.estate_id !== next.estate_id) {
      if (prev?.estate_id) this.members.get(prev.estate_id)?.delete(key)
      if (next.estate_id) {
        const set = this.members.get(next.estate_id) ?? new Set<string>()
        this.members.set(next.estate_id, set.add(key))
      }
    }
    this.parcels.set(key, next)
  }

  private putOrder(next: OrderRow) {
    const prev = this.orders.get(next.order_id)
    if (prev) this.assetOrders.get(`${prev.type}|${prev.asset_id}`)?.delete(next.order_id)
    const asset = `${next.type}|${next.asset_id}`
    const set = this.assetOrders.get(asset) ?? new Set<string>()
    this.assetOrders.set(asset, set.add(next.order_id))
    this.orders.set(next.order_id, next)
  }

  /** Changes a parcel (every cell of the grid exists and was loaded). */
  private changeParcel(key: string, change: Partial<ParcelRow>) {
    const row = this.parcels.get(key)
    if (!row) throw new Error(`parcel ${key} was not loaded`)
    this.remember('parcels', { x: row.x, y: row.y }, key, row)
    this.putParcel({ ...row, ...change, updated_at: this.now })
    this.changed.parcels.add(key)
  }

  private rememberEstate(id: string) {
    this.remember('estates', { id }, id, this.estates.get(id) ?? null)
  }

  private changeEstate(row: EstateRow) {
    this.estates.set(row.id, row)
    this.changed.estates.add(row.id)
  }

  private rememberPublication(txHash: string) {
    this.remember('publications', { tx_hash: txHash }, txHash, this.publications.get(txHash) ?? null)
  }

  private changePublication(row: PublicationRow) {
    this.publications.set(row.tx_hash, row)
    this.changed.publications.add(row.tx_hash)
  }

  private openOrder(orderId: string): PublicationRow | null {
    const order = this.orders.get(orderId)
    const publication = order ? this.publications.get(order.tx_hash) : null
    return publication?.status === 'open' ? publication : null
  }

  /** Applies one event; null when applied, else why it was skipped (bad data on chain never throws). */
  apply({ event, time, txHash, address }: Located, contracts: Contracts): SkipReason | null {
    const at = new Date(time).toISOString()
    switch (event.kind) {
      case 'LandTransfer': {
        const parcel = parcelOf(event.tokenId)
        if (!parcel) return 'token_outside_grid'
        const key = cellKey(parcel.x, parcel.y)
        // into the estate registry: the owner is the one its AddLand gives
        if (event.to === contracts.estates) this.changeParcel(key, { last_transferred_at: at })
        else {
          const leaves = event.from === contracts.estates
          this.changeParcel(key, {
            owner: ownerOf(event.to),
            last_transferred_at: at,
            ...(leaves ? { estate_id: null } : {}),
          })
        }
        return null
      }
      case 'LandUpdate': {
        const parcel = parcelOf(event.tokenId)
        if (!parcel) return 'token_outside_grid'
        const data = parseAssetData(event.data)
        if (!data) return 'malformed_data'
        this.changeParcel(cellKey(parcel.x, parcel.y), {
          data_version: data.version,
          name: data.name,
          description: data.description,
          ipns: data.ipns,
        })
        return null
      }
      case 'EstateTransfer': {
        // the estate exists from its mint on, before its CreateEstate
        const id = event.estateId.toString()
        const owner = ownerOf(event.to)
        this.rememberEstate(id)
        const before = this.estates.get(id)
        this.changeEstate(
          before
            ? { ...before, owner, last_transferred_at: at, updated_at: this.now }
            : {
                id,
                owner,
                name: '',
                description: '',
                district_id: null,
                tx_hash: txHash,
                last_transferred_at: at,
                updated_at: this.now,
              },
        )
        // a parcel held by the estate registry shows its estate's owner
        for (const key of [...(this.members.get(id) ?? [])]) this.changeParcel(key, { owner })
        return null
      }
      case 'CreateEstate': {
        const id = event.estateId.toString()
        const data = parseAssetData(event.data)
        this.rememberEstate(id)
        const before = this.estates.get(id)
        const named = data ? { name: data.name, description: data.description } : {}
        this.changeEstate(
          before
            ? { ...before, owner: event.owner, tx_hash: txHash, updated_at: this.now, ...named }
            : {
                id,
                owner: event.owner,
                name: data?.name ?? '',
                description: data?.description ?? '',
                district_id: null,
                tx_hash: txHash,
                last_transferred_at: null,
                updated_at: this.now,
              },
        )
        // the estate exists either way; only its name and description are left out
        return data ? null : 'malformed_data'
      }
      case 'EstateUpdate': {
        const data = parseAssetData(event.data)
        if (!data) return 'malformed_data'
        const id = event.estateId.toString()
        this.rememberEstate(id)
        const before = this.estates.get(id)
        if (!before) return 'unknown_estate'
        this.changeEstate({ ...before, name: data.name, description: data.description, updated_at: this.now })
        return null
      }
      case 'AddLand': {
        const parcel = parcelOf(event.tokenId)
        if (!parcel) return 'token_outside_grid'
        const id = event.estateId.toString()
        const estate = this.estates.get(id)
        if (!estate) return 'unknown_estate'
        this.changeParcel(cellKey(parcel.x, parcel.y), { estate_id: id, owner: estate.owner })
        return null
      }
      case 'RemoveLand': {
        const parcel = parcelOf(event.tokenId)
        if (!parcel) return 'token_outside_grid'
        const key = cellKey(parcel.x, parcel.y)
        const id = event.estateId.toString()
        const row = this.parcels.get(key)!
        if (row.estate_id === id) this.changeParcel(key, { estate_id: null, owner: event.destinatary })
        // the image is taken even when nothing changes, as one statement per event did
        else this.remember('parcels', { x: row.x, y: row.y }, key, row)
        return null
      }
      case 'OrderCreated': {
        const asset = orderAsset(event, contracts)
        if (typeof asset === 'string') return asset
        const expiresAt = expiresMs(event.expiresAt)
        if (expiresAt === null) return 'malformed_order'
        if (this.publications.get(txHash)) return 'duplicate_publication'
        // the marketplace keeps one order per asset: the asset's earlier open orders are replaced
        for (const orderId of [...(this.assetOrders.get(`${asset.type}|${asset.assetId}`) ?? [])]) {
          const open = this.openOrder(orderId)
          if (!open) continue
          this.rememberPublication(open.tx_hash)
          this.changePublication({
            ...open,
            status: 'cancelled',
            block_time_updated_at: time,
            updated_at: this.now,
          })
        }
        this.rememberPublication(txHash)
        this.remember(
          'land_chain_orders',
          { order_id: event.orderId },
          event.orderId,
          this.orders.get(event.orderId) ?? null,
        )
        this.changePublication({
          tx_hash: txHash,
          tx_status: 'confirmed',
          owner: event.seller,
          price: manaOf(event.priceInWei),
          status: 'open',
          buyer: null,
          contract_id: event.nftAddress,
          block_number: Number(this.block),
          expires_at: expiresAt,
          block_time_created_at: time,
          block_time_updated_at: time,
          type: asset.type,
          asset_id: asset.assetId,
          marketplace_id: address,
          updated_at: this.now,
        })
        this.putOrder({ order_id: event.orderId, tx_hash: txHash, type: asset.type, asset_id: asset.assetId })
        this.changed.orders.add(event.orderId)
        return null
      }
      case 'OrderSuccessful':
      case 'OrderCancelled': {
        if (event.nftAddress !== contracts.land && event.nftAddress !== contracts.estates)
          return 'order_other_nft'
        const open = this.openOrder(event.orderId)
        if (!open) return 'unknown_order'
        const sold = event.kind === 'OrderSuccessful'
        this.rememberPublication(open.tx_hash)
        this.changePublication({
          ...open,
          status: sold ? 'sold' : 'cancelled',
          buyer: sold ? event.buyer : null,
          block_time_updated_at: time,
          updated_at: this.now,
        })
        return null
      }
    }
  }

  result() {
    const pick = <T>(map: Map<string, T | null>, keys: Set<string>) =>
      [...keys].map((k) => map.get(k)).filter((row): row is T => row != null)
    return {
      parcels: [...this.changed.parcels].map((k) => this.parcels.get(k)!),
      estates: pick(this.estates, this.changed.estates),
      publications: pick(this.publications, this.changed.publications),
      orders: pick(this.orders, this.changed.orders),
      undo: this.undo,
    }
  }
}

/**
 * Applies a batch's events, in block and log order, to the land tables in the caller's transaction: the rows
 * they touch are read with a few queries, the events folded into them in memory, and the final rows (with
 * the undo images of blocks above `floor`) written with a few set-based statements. Returns why each skipped
 * event was skipped. The rows written are told to `changes`.
 */
export async function applyEvents(
  q: Queryable,
  events: readonly Located[],
  contracts: Contracts,
  floor: bigint,
  changes?: LandChanges,
): Promise<SkipReason[]> {
  if (events.length === 0) return []
  const keys = keysOf(events, contracts)
  const { rows, now } = await loadChainRows(q, keys)
  const fold = new Fold(rows, now)
  const skipped: SkipReason[] = []
  for (const located of events) {
    fold.at(located.block, located.block > floor)
    const reason = fold.apply(located, contracts)
    if (reason) skipped.push(reason)
  }
  await writeChainRows(q, fold.result(), changes)
  return skipped
}
