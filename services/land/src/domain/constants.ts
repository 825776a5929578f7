/** The two districts that are not community districts: drawn as roads and plazas, tagged by proximity. */
export const ROAD_DISTRICT_ID = 'f77140f9-c7b4-4787-89c9-9fa0e219b079'
export const PLAZA_DISTRICT_ID = '55327350-d9f0-4cae-b0f3-8745a0431099'

/** Ethereum mainnet contracts of Decentraland, used as contract_id / marketplace_id of publications. */
export const LAND_CONTRACT = '0xf87e31492faf9a91b02ee0deaad50d51d56d5d4d'
export const ESTATE_CONTRACT = '0x959e104e1a4db6317fa58f8295f586e1a978c297'
export const MARKETPLACE_CONTRACT = '0x8e5660b4ab70168b5a6feea0e0315cb49c8cd539'

/** Proximity tags are given to parcels at most this many parcels away from a road or a plaza. */
export const PROXIMITY_MAX_DISTANCE = 10

export const PUBLICATION_STATUSES = ['open', 'cancelled', 'sold'] as const
export type PublicationStatus = (typeof PUBLICATION_STATUSES)[number]
export const ASSET_TYPES = ['parcel', 'estate'] as const
export type AssetType = (typeof ASSET_TYPES)[number]
