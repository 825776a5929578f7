import type { Queryable } from '@genesis/common'
import {
  addLandToEstate,
  closePublication,
  createEstate,
  openPublication,
  removeLandFromEstate,
  setEstateData,
  setParcelData,
  setParcelOwner,
  touchParcelTransfer,
  upsertEstateOwner,
  type Write,
} from '../db/chain-writes.js'
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

const ownerOf = (address: string): string | null => (address === ZERO_ADDRESS ? null : address)

/** Wei → MANA (18 decimals), exact to the double nearest. */
const manaOf = (wei: bigint): number => Number(wei / 10n ** 18n) + Number(wei % 10n ** 18n) / 1e18

/** Decentraland's older orders wrote `expiresAt` in ms, newer ones in seconds. */
const expiresMs = (value: bigint): number | null => {
  const ms = value >= 10n ** 12n ? value : value * 1000n
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(ms)
}

/**
 * Applies one event to the land tables (in the caller's transaction). Returns null when applied, else why it
 * was skipped: bad data on chain never throws.
 */
export async function applyEvent(
  q: Queryable,
  { event, block, time, txHash, address }: Located,
  contracts: Contracts,
  undo: boolean,
): Promise<SkipReason | null> {
  const w: Write = { q, block, undo }
  const at = new Date(time)
  switch (event.kind) {
    case 'LandTransfer': {
      const parcel = parcelOf(event.tokenId)
      if (!parcel) return 'token_outside_grid'
      if (event.to === contracts.estates) await touchParcelTransfer(w, parcel.x, parcel.y, at)
      else
        await setParcelOwner(w, parcel.x, parcel.y, ownerOf(event.to), at, event.from === contracts.estates)
      return null
    }
    case 'LandUpdate': {
      const parcel = parcelOf(event.tokenId)
      if (!parcel) return 'token_outside_grid'
      const data = parseAssetData(event.data)
      if (!data) return 'malformed_data'
      await setParcelData(w, parcel.x, parcel.y, data)
      return null
    }
    case 'EstateTransfer':
      await upsertEstateOwner(w, event.estateId.toString(), ownerOf(event.to), at, txHash)
      return null
    case 'CreateEstate': {
      const data = parseAssetData(event.data)
      await createEstate(w, event.estateId.toString(), event.owner, data, txHash)
      // the estate exists either way; only its name and description are left out
      return data ? null : 'malformed_data'
    }
    case 'EstateUpdate': {
      const data = parseAssetData(event.data)
      if (!data) return 'malformed_data'
      return (await setEstateData(w, event.estateId.toString(), data)) ? null : 'unknown_estate'
    }
    case 'AddLand': {
      const parcel = parcelOf(event.tokenId)
      if (!parcel) return 'token_outside_grid'
      return (await addLandToEstate(w, event.estateId.toString(), parcel.x, parcel.y))
        ? null
        : 'unknown_estate'
    }
    case 'RemoveLand': {
      const parcel = parcelOf(event.tokenId)
      if (!parcel) return 'token_outside_grid'
      await removeLandFromEstate(w, event.estateId.toString(), parcel.x, parcel.y, event.destinatary)
      return null
    }
    case 'OrderCreated': {
      let type: 'parcel' | 'estate'
      let assetId: string
      if (event.nftAddress === contracts.land) {
        const parcel = parcelOf(event.assetId)
        if (!parcel) return 'token_outside_grid'
        type = 'parcel'
        assetId = `${parcel.x},${parcel.y}`
      } else if (event.nftAddress === contracts.estates) {
        type = 'estate'
        assetId = event.assetId.toString()
      } else {
        return 'order_other_nft'
      }
      const expiresAt = expiresMs(event.expiresAt)
      if (expiresAt === null) return 'malformed_order'
      const opened = await openPublication(w, {
        txHash,
        orderId: event.orderId,
        owner: event.seller,
        price: manaOf(event.priceInWei),
        contractId: event.nftAddress,
        marketplaceId: address,
        blockNumber: block,
        expiresAt,
        at: time,
        type,
        assetId,
      })
      return opened ? null : 'duplicate_publication'
    }
    case 'OrderSuccessful':
    case 'OrderCancelled': {
      if (event.nftAddress !== contracts.land && event.nftAddress !== contracts.estates)
        return 'order_other_nft'
      const sold = event.kind === 'OrderSuccessful'
      const closed = await closePublication(
        w,
        event.orderId,
        sold ? 'sold' : 'cancelled',
        sold ? event.buyer : null,
        time,
      )
      return closed ? null : 'unknown_order'
    }
  }
}
