import { type Static, Type } from '@sinclair/typebox'
import { Address, HINT } from '../index.js'
import { CoordinateString, GRID_MAX, GRID_MIN } from './grid.js'
import { PublicationStatus, TxHash } from './resources.js'

export const SORT_FIELDS = ['price', 'created_at', 'block_time_updated_at', 'expires_at'] as const
export type SortField = (typeof SORT_FIELDS)[number]
export const SortBy = Type.Union(
  [
    Type.Literal('price'),
    Type.Literal('created_at'),
    Type.Literal('block_time_updated_at'),
    Type.Literal('expires_at'),
  ],
  { default: 'created_at', description: "the publication's field to sort by" },
)
export const SortOrder = Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
  description: 'default: asc for price and expires_at, desc for created_at and block_time_updated_at',
})

export const MAX_LIMIT = 100
/** Far beyond any page of the grid (90,601 parcels), and within what the database accepts. */
export const MAX_OFFSET = 10_000_000
export const Paging = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
}

export const ListQuery = Type.Object({
  status: Type.Optional(Type.Union(PublicationStatus.anyOf, { default: 'open' })),
  sort_by: Type.Optional(SortBy),
  sort_order: Type.Optional(SortOrder),
  ...Paging,
})
export type ListQuery = Static<typeof ListQuery>

export const PagingQuery = Type.Object(Paging)
export type PagingQuery = Static<typeof PagingQuery>

export const AddressParams = Type.Object({ address: Address })

const GridInteger = Type.Integer({ minimum: GRID_MIN, maximum: GRID_MAX, default: 0 })
export const ParcelParams = Type.Object({ x: GridInteger, y: GridInteger })
export type ParcelParams = Static<typeof ParcelParams>

export const ParcelPublicationsQuery = Type.Object({ status: Type.Optional(PublicationStatus) })

export const TxHashParams = Type.Object({ txHash: TxHash })

export const MapQuery = Type.Object({
  nw: CoordinateString,
  se: CoordinateString,
})

export const LocaleParams = Type.Object({
  locale: Type.String({
    pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$',
    description: 'en, es, fr, ko or zh; a region suffix (en-US, zh_CN) maps to its language',
    [HINT]: 'expected a language code such as en, or with a region such as en-US',
  }),
})
