import { type Static, Type } from '@sinclair/typebox'
import { Address, Nullable, Uuid } from '../index.js'
import { CoordinateString, GRID_MAX, GRID_MIN } from './grid.js'
import { AssetType, PublicationStatus, TxHash, TxStatus } from './resources.js'

/**
 * Rows accepted by `pnpm run import`: the API's own shapes, so that what the service answers can be
 * imported again. Fields the service computes (tags, in_estate, publication, size, parcel_count,
 * center) are accepted and ignored; any other unknown field is refused.
 */
const GridInteger = Type.Integer({ minimum: GRID_MIN, maximum: GRID_MAX })
const DateTime = Type.String({ format: 'date-time' })
export const EstateId = Type.String({ pattern: '^[0-9A-Za-z_-]{1,80}$' })
const Ignored = Type.Unknown({ description: 'computed by the service; ignored on import' })

export const DistrictImport = Type.Object(
  {
    id: Uuid,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    link: Type.Optional(Type.String({ maxLength: 2000 })),
    public: Type.Optional(Type.Boolean()),
    /** When present, exactly these parcels form the district. */
    parcels: Type.Optional(Type.Array(CoordinateString)),
    parcel_count: Type.Optional(Ignored),
    center: Type.Optional(Ignored),
    /** decentraland/atlas-server's districts.json carries it; not reliable, so ignored (data/SOURCE.md). */
    totalParcels: Type.Optional(Ignored),
  },
  { additionalProperties: false },
)

export const ParcelImport = Type.Object(
  {
    id: Type.Optional(CoordinateString),
    x: GridInteger,
    y: GridInteger,
    owner: Type.Optional(Nullable(Address)),
    district_id: Type.Optional(Nullable(Uuid)),
    estate_id: Type.Optional(Nullable(EstateId)),
    data: Type.Optional(
      Type.Object(
        {
          version: Type.Optional(Type.Integer({ minimum: 0 })),
          name: Type.Optional(Type.String({ maxLength: 500 })),
          description: Type.Optional(Type.String({ maxLength: 5000 })),
          ipns: Type.Optional(Type.String({ maxLength: 500 })),
        },
        { additionalProperties: false },
      ),
    ),
    auction_price: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    auction_owner: Type.Optional(Nullable(Address)),
    last_transferred_at: Type.Optional(Nullable(DateTime)),
    tags: Type.Optional(Ignored),
    in_estate: Type.Optional(Ignored),
    publication: Type.Optional(Ignored),
  },
  { additionalProperties: false },
)

export const EstateImport = Type.Object(
  {
    id: EstateId,
    owner: Type.Optional(Nullable(Address)),
    data: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ maxLength: 500 })),
          description: Type.Optional(Type.String({ maxLength: 5000 })),
          /** When present, exactly these parcels form the estate. */
          parcels: Type.Optional(
            Type.Array(Type.Object({ x: GridInteger, y: GridInteger }, { additionalProperties: false })),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    district_id: Type.Optional(Nullable(Uuid)),
    tx_hash: Type.Optional(Nullable(TxHash)),
    last_transferred_at: Type.Optional(Nullable(DateTime)),
    size: Type.Optional(Ignored),
    publication: Type.Optional(Ignored),
  },
  { additionalProperties: false },
)

export const PublicationImport = Type.Object(
  {
    tx_hash: TxHash,
    tx_status: Type.Optional(TxStatus),
    owner: Address,
    price: Type.Number({ minimum: 0 }),
    status: PublicationStatus,
    buyer: Type.Optional(Nullable(Address)),
    contract_id: Type.String({ minLength: 1, maxLength: 200 }),
    block_number: Type.Integer({ minimum: 0 }),
    expires_at: Type.Integer({ description: 'ms since epoch' }),
    block_time_created_at: Type.Integer({ description: 'ms since epoch' }),
    block_time_updated_at: Type.Optional(Nullable(Type.Integer())),
    type: AssetType,
    asset_id: Type.String({ minLength: 1, maxLength: 80 }),
    marketplace_id: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
)

export const ContributionImport = Type.Object(
  {
    address: Address,
    district_id: Uuid,
    land_count: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,9}$' })]),
  },
  { additionalProperties: false },
)

export type DistrictImport = Static<typeof DistrictImport>
export type ParcelImport = Static<typeof ParcelImport>
export type EstateImport = Static<typeof EstateImport>
export type PublicationImport = Static<typeof PublicationImport>
export type ContributionImport = Static<typeof ContributionImport>

export const IMPORT_KINDS = ['districts', 'estates', 'parcels', 'publications', 'contributions'] as const
export type ImportKind = (typeof IMPORT_KINDS)[number]

export const importSchemas = {
  districts: DistrictImport,
  estates: EstateImport,
  parcels: ParcelImport,
  publications: PublicationImport,
  contributions: ContributionImport,
} as const
