import type { Stamped } from '../../db/chain-writes.js'
import type { PublicationRow } from '../../db/tables.js'
import type { AssetType } from '../../domain/constants.js'
import type { Contracts } from '../events.js'
import type { LogArgs } from '../log-args.js'
import { assetGroup, type BatchStore } from '../store.js'
import { type EventContext, type Handler, parcelKey, type SkipReason } from './handler.js'

/** What every order event says: the order, the asset and its registry, the seller. */
export interface OrderEvent {
  orderId: string
  assetId: bigint
  seller: string
  nftAddress: string
}

const orderOf = (args: LogArgs): OrderEvent => ({
  orderId: args.bytes32('id'),
  assetId: args.uint('assetId'),
  seller: args.address('seller'),
  nftAddress: args.address('nftAddress'),
})

/** Wei → MANA (18 decimals), exact to the double nearest. */
const manaOf = (wei: bigint): number => Number(wei / 10n ** 18n) + Number(wei % 10n ** 18n) / 1e18

/** Decentraland's older orders wrote `expiresAt` in ms, newer ones in seconds. */
const expiresMs = (value: bigint): number | null => {
  const ms = value >= 10n ** 12n ? value : value * 1000n
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(ms)
}

/** The asset an order is for (`x,y` for a parcel, the estate id), or why it is skipped. */
function orderAsset(
  event: OrderEvent,
  contracts: Contracts,
): { type: AssetType; assetId: string } | SkipReason {
  if (event.nftAddress === contracts.land) {
    const key = parcelKey(event.assetId)
    return key ? { type: 'parcel', assetId: key } : 'token_outside_grid'
  }
  if (event.nftAddress === contracts.estates) return { type: 'estate', assetId: event.assetId.toString() }
  return 'order_other_nft'
}

/** The open publication an order became, if it is still open. */
function openPublication(db: BatchStore, orderId: string): Stamped<PublicationRow> | null {
  const order = db.orders.get(orderId)
  const publication = order ? db.publications.get(order.tx_hash) : undefined
  return publication?.status === 'open' ? publication : null
}

/**
 * `OrderCreated`: an open publication keyed by the transaction hash. The marketplace keeps one order per
 * asset, so the asset's earlier open orders are cancelled.
 */
export const OrderCreated: Handler<OrderEvent & { priceInWei: bigint; expiresAt: bigint }> = {
  decode: (args) => ({
    ...orderOf(args),
    priceInWei: args.uint('priceInWei'),
    expiresAt: args.uint('expiresAt'),
  }),
  keys(event, want, { txHash, contracts }) {
    want.publication(txHash)
    want.order(event.orderId)
    const asset = orderAsset(event, contracts)
    if (typeof asset !== 'string') want.assetOrders(asset.type, asset.assetId)
  },
  apply(event, ctx) {
    const asset = orderAsset(event, ctx.contracts)
    if (typeof asset === 'string') return asset
    const expiresAt = expiresMs(event.expiresAt)
    if (expiresAt === null) return 'malformed_order'
    const { db, txHash, time } = ctx
    if (db.publications.get(txHash)) return 'duplicate_publication'
    for (const order of db.orders.inGroup(assetGroup(asset.type, asset.assetId))) {
      const open = openPublication(db, order.order_id)
      if (open) db.publications.put({ ...open, status: 'cancelled', block_time_updated_at: time })
    }
    db.publications.put({
      tx_hash: txHash,
      tx_status: 'confirmed',
      owner: event.seller,
      price: manaOf(event.priceInWei),
      status: 'open',
      buyer: null,
      contract_id: event.nftAddress,
      block_number: Number(ctx.block),
      expires_at: expiresAt,
      block_time_created_at: time,
      block_time_updated_at: time,
      type: asset.type,
      asset_id: asset.assetId,
      marketplace_id: ctx.address,
    })
    db.orders.put({ order_id: event.orderId, tx_hash: txHash, type: asset.type, asset_id: asset.assetId })
    return null
  },
}

/** `OrderSuccessful` and `OrderCancelled`: the order's open publication is sold (to `buyer`) or cancelled. */
function closeOrder(event: OrderEvent, ctx: EventContext, buyer: string | null): SkipReason | null {
  const { land, estates } = ctx.contracts
  if (event.nftAddress !== land && event.nftAddress !== estates) return 'order_other_nft'
  const open = openPublication(ctx.db, event.orderId)
  if (!open) return 'unknown_order'
  ctx.db.publications.put({
    ...open,
    status: buyer === null ? 'cancelled' : 'sold',
    buyer,
    block_time_updated_at: ctx.time,
  })
  return null
}

export const OrderSuccessful: Handler<OrderEvent & { totalPrice: bigint; buyer: string }> = {
  decode: (args) => ({ ...orderOf(args), totalPrice: args.uint('totalPrice'), buyer: args.address('buyer') }),
  keys: (event, want) => want.order(event.orderId),
  apply: (event, ctx) => closeOrder(event, ctx, event.buyer),
}

export const OrderCancelled: Handler<OrderEvent> = {
  decode: orderOf,
  keys: (event, want) => want.order(event.orderId),
  apply: (event, ctx) => closeOrder(event, ctx, null),
}
