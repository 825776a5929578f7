import { type Static, Type } from '@sinclair/typebox'
import { HINT } from '../index.js'
import { CoordinateString, GRID_MAX, GRID_MIN } from './grid.js'

/** The image defaults (README "Endpoints"); the schemas below declare them, handlers fall back to the same values. */
export const IMAGE_DEFAULTS = {
  width: 500,
  height: 500,
  size: 10,
  publications: false,
  center: '0,0',
} as const

/** Width, height, size and publications: the query every PNG map route accepts. */
const imageQueryFields = {
  width: Type.Optional(
    Type.Integer({
      minimum: 32,
      maximum: 2048,
      default: IMAGE_DEFAULTS.width,
      description: 'Image width in pixels',
    }),
  ),
  height: Type.Optional(
    Type.Integer({
      minimum: 32,
      maximum: 2048,
      default: IMAGE_DEFAULTS.height,
      description: 'Image height in pixels',
    }),
  ),
  size: Type.Optional(
    Type.Integer({
      minimum: 5,
      maximum: 40,
      default: IMAGE_DEFAULTS.size,
      description: 'Edge in pixels of one parcel square',
    }),
  ),
  publications: Type.Optional(
    Type.Boolean({
      default: IMAGE_DEFAULTS.publications,
      description: 'Highlight parcels and estates on sale',
    }),
  ),
}

export const ImageQuery = Type.Object(imageQueryFields)
export type ImageQuery = Static<typeof ImageQuery>

// Empty means none, so a client may always send the parameter.
const COORDINATE_LIST_PATTERN = '^((-?\\d{1,3},-?\\d{1,3})(;-?\\d{1,3},-?\\d{1,3})*;?)?$'

export const MapImageQuery = Type.Object({
  ...imageQueryFields,
  center: Type.Optional(
    Type.String({
      pattern: CoordinateString.pattern,
      default: IMAGE_DEFAULTS.center,
      description: `The parcel in the middle of the image: x,y with integers from ${GRID_MIN} to ${GRID_MAX}`,
      examples: ['0,0', '-45,102'],
      [HINT]: `expected x,y with integers from ${GRID_MIN} to ${GRID_MAX}`,
    }),
  ),
  selected: Type.Optional(
    Type.String({
      pattern: COORDINATE_LIST_PATTERN,
      description: 'Parcels drawn as selected: x,y coordinates separated by semicolons',
      examples: ['0,0;1,0;-3,12'],
      [HINT]: `expected x,y coordinates separated by semicolons, integers from ${GRID_MIN} to ${GRID_MAX}`,
    }),
  ),
})
export type MapImageQuery = Static<typeof MapImageQuery>

const GridInteger = Type.Integer({ minimum: GRID_MIN, maximum: GRID_MAX })

export const ParcelImageParams = Type.Object({ x: GridInteger, y: GridInteger })
export type ParcelImageParams = Static<typeof ParcelImageParams>

export const EstateImageParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'Estate id' }),
})
export type EstateImageParams = Static<typeof EstateImageParams>

/** The 200 answer, for the OpenAPI document: raw PNG bytes. */
export const PngResponse = {
  description: 'A PNG image of the map',
  content: { 'image/png': { schema: Type.String({ format: 'binary' }) } },
}
