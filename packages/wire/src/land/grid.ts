import { Type } from '@sinclair/typebox'
import { HINT } from '../index.js'

/** Parcels' x and y run from -150 to 150: Genesis City's 301 × 301 grid. */
export const GRID_MIN = -150
export const GRID_MAX = 150

export const CoordinateString = Type.String({
  pattern: '^-?\\d{1,3},-?\\d{1,3}$',
  description: `x,y with integers from ${GRID_MIN} to ${GRID_MAX}`,
  examples: ['0,0', '-45,102'],
  [HINT]: `expected x,y with integers from ${GRID_MIN} to ${GRID_MAX}`,
})
