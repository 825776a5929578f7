import { readLandData } from '../../domain/land-data.js'
import { cellKey } from '../store.js'
import { type Handler, holder, isoTime, parcelKey, type RowKeys } from './handler.js'

/**
 * Estate `Transfer`: the estate's owner (the row is made on the mint, before its `CreateEstate`), and the
 * owner each of its parcels shows.
 */
export const EstateTransfer: Handler<{ from: string; to: string; estateId: bigint }> = {
  decode: (args) => ({ from: args.address('from'), to: args.address('to'), estateId: args.uint('assetId') }),
  keys(event, want) {
    want.estate(event.estateId)
    want.estateParcels(event.estateId)
  },
  apply(event, ctx) {
    const id = event.estateId.toString()
    const owner = holder(event.to)
    const at = isoTime(ctx)
    const { estates, parcels } = ctx.db
    if (!estates.update(id, { owner, last_transferred_at: at })) {
      estates.put({
        id,
        owner,
        name: '',
        description: '',
        district_id: null,
        tx_hash: ctx.txHash,
        last_transferred_at: at,
      })
    }
    for (const parcel of parcels.inGroup(id)) parcels.update(cellKey(parcel.x, parcel.y), { owner })
    return null
  },
}

/** `CreateEstate`: owner, name, description and the creating transaction. */
export const CreateEstate: Handler<{ owner: string; estateId: bigint; data: Uint8Array }> = {
  decode: (args) => ({
    owner: args.address('_owner'),
    estateId: args.uint('_estateId'),
    data: args.bytes('_data'),
  }),
  keys: (event, want) => want.estate(event.estateId),
  apply(event, ctx) {
    const id = event.estateId.toString()
    const data = readLandData(event.data)
    const named = data ? { name: data.name, description: data.description } : {}
    const { estates } = ctx.db
    if (!estates.update(id, { owner: event.owner, tx_hash: ctx.txHash, ...named })) {
      estates.put({
        id,
        owner: event.owner,
        name: data?.name ?? '',
        description: data?.description ?? '',
        district_id: null,
        tx_hash: ctx.txHash,
        last_transferred_at: null,
      })
    }
    // the estate exists either way; only its name and description are left out
    return data ? null : 'malformed_data'
  },
}

/** Estate `Update`: name and description. */
export const EstateUpdate: Handler<{ estateId: bigint; data: Uint8Array }> = {
  decode: (args) => ({ estateId: args.uint('_assetId'), data: args.bytes('_data') }),
  keys: (event, want) => want.estate(event.estateId),
  apply(event, ctx) {
    const data = readLandData(event.data)
    if (!data) return 'malformed_data'
    const updated = ctx.db.estates.update(event.estateId.toString(), {
      name: data.name,
      description: data.description,
    })
    return updated ? null : 'unknown_estate'
  },
}

/** AddLand and RemoveLand name the parcel and the estate. */
const parcelAndEstate = (event: { tokenId: bigint; estateId: bigint }, want: RowKeys) => {
  want.parcel(event.tokenId)
  want.estate(event.estateId)
}

/** `AddLand`: the parcel joins the estate and shows its owner. */
export const AddLand: Handler<{ estateId: bigint; tokenId: bigint }> = {
  decode: (args) => ({ estateId: args.uint('_estateId'), tokenId: args.uint('_landId') }),
  keys: parcelAndEstate,
  apply(event, ctx) {
    const key = parcelKey(event.tokenId)
    if (!key) return 'token_outside_grid'
    const id = event.estateId.toString()
    const estate = ctx.db.estates.get(id)
    if (!estate) return 'unknown_estate'
    ctx.db.parcels.update(key, { estate_id: id, owner: estate.owner })
    return null
  },
}

/** `RemoveLand`: the parcel leaves the estate for the destinatary. */
export const RemoveLand: Handler<{ estateId: bigint; tokenId: bigint; destinatary: string }> = {
  decode: (args) => ({
    estateId: args.uint('_estateId'),
    tokenId: args.uint('_landId'),
    destinatary: args.address('_destinatary'),
  }),
  keys: parcelAndEstate,
  apply(event, ctx) {
    const key = parcelKey(event.tokenId)
    if (!key) return 'token_outside_grid'
    if (ctx.db.parcels.row(key).estate_id === event.estateId.toString()) {
      ctx.db.parcels.update(key, { estate_id: null, owner: event.destinatary })
    }
    return null
  },
}
