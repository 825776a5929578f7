import { type Static, Type } from '@sinclair/typebox'
import { Address, Envelope, HINT, Nullable, Uuid } from '../index.js'

export const PublicationStatus = Type.Union(
  [Type.Literal('open'), Type.Literal('cancelled'), Type.Literal('sold')],
  { description: 'Sale status of a publication' },
)
export const TxStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('confirmed'),
  Type.Literal('failed'),
])
export const AssetType = Type.Union([Type.Literal('parcel'), Type.Literal('estate')])
export const TxHash = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  description: 'A transaction hash: 0x and 64 hex digits (answers are lower-case)',
  [HINT]: 'expected a transaction hash: 0x and 64 hex digits',
})
const Millis = Type.Integer({ description: 'milliseconds since the Unix epoch' })
const DateTime = Type.String({ format: 'date-time' })

export const Coordinate = Type.Object({ x: Type.Integer(), y: Type.Integer() })
export type Coordinate = Static<typeof Coordinate>

export const Publication = Type.Object({
  tx_hash: Type.String(),
  tx_status: TxStatus,
  owner: Address,
  price: Type.Number({ minimum: 0 }),
  status: PublicationStatus,
  buyer: Nullable(Address),
  contract_id: Type.String(),
  block_number: Type.Integer({ minimum: 0 }),
  expires_at: Millis,
  block_time_created_at: Millis,
  block_time_updated_at: Nullable(Millis),
  type: AssetType,
  asset_id: Type.String({ description: '`x,y` for a parcel, the estate id for an estate' }),
  marketplace_id: Type.String(),
})
export type Publication = Static<typeof Publication>

export const ProximityTag = Type.Object({
  district_id: Uuid,
  distance: Type.Integer({ minimum: 0, description: 'parcels in between (0 = adjacent)' }),
})
export const ParcelTags = Type.Object({
  proximity: Type.Optional(
    Type.Object({ road: Type.Optional(ProximityTag), plaza: Type.Optional(ProximityTag) }),
  ),
})
export type ParcelTags = Static<typeof ParcelTags>

export const ParcelData = Type.Object({
  version: Type.Integer({ minimum: 0 }),
  name: Type.String(),
  description: Type.String(),
  ipns: Type.String(),
})

export const Parcel = Type.Object({
  id: Type.String({ description: '`x,y`' }),
  x: Type.Integer(),
  y: Type.Integer(),
  auction_price: Nullable(Type.Number()),
  district_id: Nullable(Uuid),
  owner: Nullable(Address),
  data: ParcelData,
  auction_owner: Nullable(Address),
  tags: ParcelTags,
  last_transferred_at: Nullable(DateTime),
  in_estate: Type.Boolean(),
  estate_id: Nullable(Type.String()),
  publication: Nullable(Publication),
})
export type Parcel = Static<typeof Parcel>

export const Estate = Type.Object({
  id: Type.String(),
  owner: Nullable(Address),
  data: Type.Object({ name: Type.String(), description: Type.String(), parcels: Type.Array(Coordinate) }),
  district_id: Nullable(Uuid),
  tx_hash: Nullable(Type.String()),
  last_transferred_at: Nullable(DateTime),
  size: Type.Integer({ minimum: 0 }),
  publication: Nullable(Publication),
})
export type Estate = Static<typeof Estate>

export const District = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  link: Type.String({ description: 'the district page URL, or an empty string' }),
  public: Type.Boolean(),
  parcel_count: Type.String({ pattern: '^[0-9]+$' }),
  center: Type.String({ description: '`x,y` of the district parcel nearest its centroid' }),
})
export type District = Static<typeof District>

export const Contribution = Type.Object({
  address: Address,
  district_id: Uuid,
  land_count: Type.String({ pattern: '^[0-9]+$' }),
})
export type Contribution = Static<typeof Contribution>

export const MapResult = Type.Object({
  assets: Type.Object({ parcels: Type.Array(Parcel), estates: Type.Array(Estate) }),
  total: Type.Integer({ minimum: 0, description: 'parcels + estates' }),
})

export const ParcelList = Type.Object({ parcels: Type.Array(Parcel), total: Type.Integer({ minimum: 0 }) })
export const EstateList = Type.Object({ estates: Type.Array(Estate), total: Type.Integer({ minimum: 0 }) })

export const Translations = Type.Record(Type.String(), Type.String())

export const ParcelEnvelope = Envelope(Parcel)
export const ParcelListEnvelope = Envelope(ParcelList)
export const EstateListEnvelope = Envelope(EstateList)
export const DistrictsEnvelope = Envelope(Type.Array(District))
export const ContributionsEnvelope = Envelope(Type.Array(Contribution))
export const MapEnvelope = Envelope(MapResult)
export const PublicationEnvelope = Envelope(Publication)
export const PublicationsEnvelope = Envelope(Type.Array(Publication))
export const TranslationsEnvelope = Envelope(Translations)
