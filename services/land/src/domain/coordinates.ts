import { GRID_MAX, GRID_MIN } from '@genesis/wire/land'
import { invalidCoordinate } from '../errors.js'
import type { Cell } from './geometry.js'

/** A parsed `x,y`: a cell of the grid. */
export type Coordinate = Cell

const COORDINATE = /^(-?\d+),(-?\d+)$/

const isInGrid = (n: number) => Number.isInteger(n) && n >= GRID_MIN && n <= GRID_MAX

/** Parses `x,y`; `name` is the parameter the value came from, quoted back in the error. */
export function parseCoordinate(value: string, name = 'coordinate'): Coordinate {
  const match = COORDINATE.exec(value.trim())
  if (!match) {
    throw invalidCoordinate(name, value, `expected x,y with integers from ${GRID_MIN} to ${GRID_MAX}`)
  }
  const x = Number(match[1])
  const y = Number(match[2])
  if (!isInGrid(x) || !isInGrid(y)) {
    throw invalidCoordinate(name, value, `x and y must be integers from ${GRID_MIN} to ${GRID_MAX}`)
  }
  return { x, y }
}

/** Parses `x,y;x,y;...` (empty entries are ignored, so a trailing `;` is harmless). */
export function parseCoordinateList(value: string, name = 'coordinates'): Coordinate[] {
  return value
    .split(';')
    .filter((part) => part.trim() !== '')
    .map((part) => parseCoordinate(part, name))
}
