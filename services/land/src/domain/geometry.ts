/**
 * The grid's geometry: parcels x, y in -150..150, cells stored row-major from the south-west corner,
 * index = (y + 150) * 301 + (x + 150).
 */

import { GRID_MAX, GRID_MIN } from '@genesis/wire/land'

export { GRID_MAX, GRID_MIN }
export const GRID_SIZE = 301 // x, y in -150..150
export const CELL_COUNT = GRID_SIZE * GRID_SIZE

export interface Cell {
  x: number
  y: number
}

export const cellIndex = (x: number, y: number): number => (y + 150) * 301 + (x + 150)

/** `"12,-3"` → { x: 12, y: -3 }, for parcel ids the database already holds in canonical form. */
export const cellOfParcelId = (id: string): Cell => {
  const comma = id.indexOf(',')
  return { x: Number(id.slice(0, comma)), y: Number(id.slice(comma + 1)) }
}

/**
 * The centre of an estate's images: the parcel at the median x and the median y of its parcels (the element
 * at floor(n/2) of each sorted list, so always a whole coordinate of the grid).
 */
export function estateCentre(parcels: ReadonlyArray<{ x: number; y: number }>): Cell {
  const middle = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  return { x: middle(parcels.map((p) => p.x)), y: middle(parcels.map((p) => p.y)) }
}
