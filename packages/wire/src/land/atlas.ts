import { type Static, Type } from '@sinclair/typebox'
import { Address, Envelope, HINT } from '../index.js'

// atlas-server's query conventions: values are read leniently (a rectangle with a non-number is ignored,
// a width that is not a number takes the default), so the query schemas are plain optional strings.

const lenient = (description: string) => Type.Optional(Type.String({ maxLength: 2000, description }))

export const TilesQuery = Type.Object({
  x1: lenient('A corner of the rectangle; the rectangle applies only when x1, y1, x2 and y2 are all numbers'),
  y1: lenient('A corner of the rectangle'),
  x2: lenient('The opposite corner'),
  y2: lenient('The opposite corner'),
  include: lenient('Only these fields, comma-separated (unknown names ignored)'),
  exclude: lenient('All fields but these, comma-separated (ignored when include is given)'),
})
export type TilesQuery = Static<typeof TilesQuery>

export const TileType = Type.Union(
  [
    Type.Literal('owned'),
    Type.Literal('unowned'),
    Type.Literal('plaza'),
    Type.Literal('road'),
    Type.Literal('district'),
  ],
  { description: 'What the tile is; estates are owned land' },
)
export type TileType = Static<typeof TileType>

const joined = (side: string) =>
  Type.Boolean({ description: `the neighbour ${side} belongs to the same estate, district, road or plaza` })

/** A whole /v2/tiles tile: absent fields are left out, never null. */
export const Tile = Type.Object({
  id: Type.String({ description: '`x,y`' }),
  x: Type.Integer(),
  y: Type.Integer(),
  type: TileType,
  name: Type.String({
    description: "the estate's name, else the parcel's, else Road / Plaza / the district",
  }),
  top: joined('above'),
  left: joined('to the left'),
  topLeft: joined('above-left'),
  updatedAt: Type.Integer({
    description: 'ms since the epoch of the last transfer or listing (0 when none)',
  }),
  owner: Type.Optional(Type.String({ description: 'lower-case address; absent when nobody owns it' })),
  estateId: Type.Optional(Type.String()),
  tokenId: Type.Optional(
    Type.String({ description: 'the LAND token id in decimal; absent for unminted land' }),
  ),
  price: Type.Optional(
    Type.Number({ description: 'MANA, of an open unexpired listing of the parcel or its estate' }),
  ),
})
export type Tile = Static<typeof Tile>
export type TileField = keyof Tile
/** Every field a tile may have, in the order they are written. */
export const TILE_FIELDS = Object.keys(Tile.properties) as TileField[]

/** A /v2/tiles tile as answered: with include/exclude only the fields asked for are present. */
export const AtlasTile = Type.Partial(Tile)

const flag = Type.Literal(1)
/** The /v1/tiles shape decentraland-ui's Atlas reads: numeric types, flags present only when set. */
export const LegacyTile = Type.Partial(
  Type.Object({
    type: Type.Integer({ description: 'on sale 10, district 5, owned 9, unowned 11, plaza 8, road 7' }),
    x: Type.Integer(),
    y: Type.Integer(),
    top: flag,
    left: flag,
    topLeft: flag,
    owner: Type.String(),
    name: Type.String(),
    estate_id: Type.String(),
    price: Type.Number(),
  }),
)
export type LegacyTile = Static<typeof LegacyTile>

export const TilesEnvelope = Envelope(Type.Record(Type.String(), AtlasTile, { description: 'by `x,y`' }))
export const LegacyTilesEnvelope = Envelope(Type.Record(Type.String(), LegacyTile))

export const TilesInfo = Type.Object({
  lastUpdatedAt: Type.Integer({ description: 'ms since the epoch at which the tiles last changed' }),
})

export const MetadataAttribute = Type.Object({
  trait_type: Type.String(),
  value: Type.Number(),
  display_type: Type.Literal('number'),
})
export type MetadataAttribute = Static<typeof MetadataAttribute>

/** ERC-721 metadata, as atlas-server writes it for LAND and estates. */
export const TokenMetadata = Type.Object({
  id: Type.String({ description: 'the token id in decimal' }),
  name: Type.String(),
  description: Type.String(),
  image: Type.String({ description: 'absolute URL of a PNG of the asset on the map' }),
  external_url: Type.String(),
  attributes: Type.Array(MetadataAttribute),
  background_color: Type.String(),
})
export type TokenMetadata = Static<typeof TokenMetadata>

export const MetadataParcelParams = Type.Object({ x: Type.Integer(), y: Type.Integer() })
export type MetadataParcelParams = Static<typeof MetadataParcelParams>

const DecimalId = (description: string) =>
  Type.String({
    pattern: '^[0-9]{1,100}$',
    description,
    [HINT]: 'expected a token id in decimal',
  })

export const MetadataEstateParams = Type.Object({ id: DecimalId('Estate id (its token id), decimal') })
export type MetadataEstateParams = Static<typeof MetadataEstateParams>

export const TokenParams = Type.Object({
  address: Address,
  id: DecimalId('Token id, decimal (a LAND id encodes x and y)'),
})
export type TokenParams = Static<typeof TokenParams>

/** atlas-server's PNG parameters (integers read as parseInt does, then clamped). */
export const AtlasImageQuery = Type.Object({
  width: lenient('Pixels, default 1024, clamped to 100..4096'),
  height: lenient('Pixels, default 1024, clamped to 100..4096'),
  size: lenient('Pixels per parcel, default 20, clamped to 5..50'),
  'on-sale': lenient('`true` highlights parcels and estates on sale'),
})
export type AtlasImageQuery = Static<typeof AtlasImageQuery>

export const AtlasMapImageQuery = Type.Composite([
  AtlasImageQuery,
  Type.Object({
    center: lenient('x,y of the middle parcel (default 0,0)'),
    selected: lenient('parcels drawn selected: x,y;x,y…'),
  }),
])
export type AtlasMapImageQuery = Static<typeof AtlasMapImageQuery>

/** The answer to a request whose If-None-Match / If-Modified-Since still holds. */
export const NotModified = Type.Null({ description: 'Not modified: the copy the client holds is current' })
