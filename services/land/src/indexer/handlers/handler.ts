import type { ChainKeys } from '../../db/chain-writes.js'
import type { AssetType } from '../../domain/constants.js'
import type { Cell } from '../../domain/geometry.js'
import { parcelOfTokenId } from '../../domain/token-id.js'
import type { Contracts, EventWhere } from '../events.js'
import type { LogArgs } from '../log-args.js'
import { assetGroup, type BatchStore, cellKey } from '../store.js'

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

/** What a handler applies an event with: the batch's rows, and where the event happened. */
export interface EventContext extends EventWhere {
  db: BatchStore
  contracts: Contracts
}

/** What a handler names an event's rows with. */
export interface KeyContext {
  txHash: string
  contracts: Contracts
}

/**
 * The handler of one kind of event (one `Contract:Event` of src/indexer/handlers/index.ts). `decode` makes
 * the event from the log's arguments, named as in the event's signature; `keys` names the rows the event can
 * read or change, so that the whole batch's rows are loaded in a few queries before any event is applied
 * (a row read that was not named throws RowNotLoaded); `apply` changes them through the batch's tables
 * (which keep the undo images) and answers null, or why the event was skipped: bad data on chain is
 * counted, never thrown.
 */
export interface Handler<Event extends object> {
  decode(args: LogArgs): Event
  keys(event: Event, want: RowKeys, ctx: KeyContext): void
  apply(event: Event, ctx: EventContext): SkipReason | null
}

/** The rows a batch's events name, collected by the handlers' `keys`. */
export class RowKeys {
  private readonly cells = new Map<string, Cell>()
  private readonly estates = new Set<string>()
  private readonly estateMembers = new Set<string>()
  private readonly txHashes = new Set<string>()
  private readonly orderIds = new Set<string>()
  private readonly assets = new Map<string, { type: AssetType; assetId: string }>()

  /** The parcel of a LAND token (none outside the grid). */
  parcel(tokenId: bigint): void {
    const cell = parcelOfTokenId(tokenId)
    if (cell) this.cells.set(cellKey(cell.x, cell.y), cell)
  }

  estate(id: bigint): void {
    this.estates.add(id.toString())
  }

  /** Every parcel of the estate (they change with it). */
  estateParcels(id: bigint): void {
    this.estateMembers.add(id.toString())
  }

  publication(txHash: string): void {
    this.txHashes.add(txHash)
  }

  /** The order, and the publication it became. */
  order(orderId: string): void {
    this.orderIds.add(orderId)
  }

  /** Every order of the asset, and the publications they became. */
  assetOrders(type: AssetType, assetId: string): void {
    this.assets.set(assetGroup(type, assetId), { type, assetId })
  }

  keys(): ChainKeys {
    return {
      cells: [...this.cells.values()],
      estates: [...this.estates],
      transferredEstates: [...this.estateMembers],
      txHashes: [...this.txHashes],
      orderIds: [...this.orderIds],
      assets: [...this.assets.values()],
    }
  }
}

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`

/** The holder an address stands for: nobody for the zero address (a burn). */
export const holder = (address: string): string | null => (address === ZERO_ADDRESS ? null : address)

/** The key of the parcel a LAND token stands for, or null outside the grid. */
export function parcelKey(tokenId: bigint): string | null {
  const cell = parcelOfTokenId(tokenId)
  return cell ? cellKey(cell.x, cell.y) : null
}

/** The event's block time as to_jsonb writes a timestamp (the `last_transferred_at` columns). */
export const isoTime = (ctx: EventContext) => new Date(ctx.time).toISOString()
