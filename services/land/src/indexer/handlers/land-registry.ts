import { readLandData } from '../../domain/land-data.js'
import { type Handler, holder, isoTime, parcelKey } from './handler.js'

/**
 * LAND `Transfer`: the parcel's owner and transfer time. Into the estate registry, the chain's owner is the
 * registry: a parcel of an estate shows the estate's owner (its `AddLand` says which estate, before or after
 * this event depending on the contract's version), one sent there outside any estate shows the registry.
 * Out of the registry, the parcel leaves its estate.
 */
export const LandTransfer: Handler<{ from: string; to: string; tokenId: bigint }> = {
  decode: (args) => ({ from: args.address('from'), to: args.address('to'), tokenId: args.uint('assetId') }),
  keys: (event, want) => want.parcel(event.tokenId),
  apply(event, ctx) {
    const key = parcelKey(event.tokenId)
    if (!key) return 'token_outside_grid'
    const { estates } = ctx.contracts
    const at = isoTime(ctx)
    if (event.to === estates) {
      const inEstate = ctx.db.parcels.row(key).estate_id !== null
      ctx.db.parcels.update(
        key,
        inEstate ? { last_transferred_at: at } : { owner: estates, last_transferred_at: at },
      )
    } else {
      ctx.db.parcels.update(key, {
        owner: holder(event.to),
        last_transferred_at: at,
        ...(event.from === estates ? { estate_id: null } : {}),
      })
    }
    return null
  },
}

/** LAND `Update`: the parcel's data string (name, description, ipns). */
export const LandUpdate: Handler<{ tokenId: bigint; data: Uint8Array }> = {
  decode: (args) => ({ tokenId: args.uint('assetId'), data: args.bytes('data') }),
  keys: (event, want) => want.parcel(event.tokenId),
  apply(event, ctx) {
    const key = parcelKey(event.tokenId)
    if (!key) return 'token_outside_grid'
    const data = readLandData(event.data)
    if (!data) return 'malformed_data'
    ctx.db.parcels.update(key, {
      data_version: data.version,
      name: data.name,
      description: data.description,
      ipns: data.ipns,
    })
    return null
  },
}
