import type { Estate, Parcel, ParcelTags } from '@genesis/wire/land'
import type { EstateRecord, ParcelRecord, PublicationRecord } from '../db/rows.js'

/** The API shape of a parcel (README "Shapes"), keys in a fixed order. */
export function toParcel(
  record: ParcelRecord,
  tags: ParcelTags,
  publication: PublicationRecord | null,
): Parcel {
  return {
    id: `${record.x},${record.y}`,
    x: record.x,
    y: record.y,
    auction_price: record.auction_price,
    district_id: record.district_id,
    owner: record.owner,
    data: {
      version: record.data_version,
      name: record.name,
      description: record.description,
      ipns: record.ipns,
    },
    auction_owner: record.auction_owner,
    tags,
    last_transferred_at: record.last_transferred_at,
    in_estate: record.estate_id !== null,
    estate_id: record.estate_id,
    publication,
  }
}

/** The API shape of an estate. */
export function toEstate(record: EstateRecord, publication: PublicationRecord | null): Estate {
  return {
    id: record.id,
    owner: record.owner,
    data: { name: record.name, description: record.description, parcels: record.parcels },
    district_id: record.district_id,
    tx_hash: record.tx_hash,
    last_transferred_at: record.last_transferred_at,
    size: record.parcels.length,
    publication,
  }
}
