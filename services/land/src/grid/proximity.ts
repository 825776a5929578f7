import type { ParcelTags } from '@genesis/wire/land'
import { PROXIMITY_MAX_DISTANCE } from '../domain/constants.js'
import { CELL_COUNT, GRID_SIZE } from '../domain/geometry.js'

export interface ProximitySource {
  /** The tag name, e.g. `road` or `plaza`. */
  kind: 'road' | 'plaza'
  /** Cell indexes of the source parcels. */
  cells: Int32Array | number[]
  /** District id of each source cell (same order as cells). */
  districtIds: string[]
}

/**
 * Multi-source BFS over the 4-neighbour grid from every parcel of one kind. Returns, per cell, the
 * number of steps to the nearest source (0 on a source, -1 when farther than maxSteps) and which
 * source district reached it first.
 */
export function bfsDistances(
  cells: ArrayLike<number>,
  maxSteps: number,
): { steps: Int16Array; origin: Int32Array } {
  const steps = new Int16Array(CELL_COUNT).fill(-1)
  const origin = new Int32Array(CELL_COUNT).fill(-1)
  const queue = new Int32Array(CELL_COUNT)
  let head = 0
  let tail = 0
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] as number
    if (steps[cell] !== -1) continue
    steps[cell] = 0
    origin[cell] = i
    queue[tail++] = cell
  }
  while (head < tail) {
    const cell = queue[head++] as number
    const next = (steps[cell] as number) + 1
    if (next > maxSteps) continue
    const cx = cell % GRID_SIZE
    const cy = (cell - cx) / GRID_SIZE
    const visit = (n: number) => {
      if (steps[n] !== -1) return
      steps[n] = next
      origin[n] = origin[cell] as number
      queue[tail++] = n
    }
    if (cx > 0) visit(cell - 1)
    if (cx < GRID_SIZE - 1) visit(cell + 1)
    if (cy > 0) visit(cell - GRID_SIZE)
    if (cy < GRID_SIZE - 1) visit(cell + GRID_SIZE)
  }
  return { steps, origin }
}

/**
 * `tags.proximity` of every cell. The distance counts the parcels in between (an adjacent parcel is at
 * distance 0, as in Decentraland's atlas data); a parcel is tagged when that distance is at most
 * PROXIMITY_MAX_DISTANCE, and never for its own kind (a road parcel has no `road` tag).
 */
export function computeProximityTags(sources: ProximitySource[]): Array<ParcelTags> {
  const tags: ParcelTags[] = new Array(CELL_COUNT)
  const empty: ParcelTags = Object.freeze({}) as ParcelTags
  tags.fill(empty)
  for (const source of sources) {
    const { steps, origin } = bfsDistances(source.cells, PROXIMITY_MAX_DISTANCE + 1)
    for (let cell = 0; cell < CELL_COUNT; cell++) {
      const s = steps[cell] as number
      if (s < 1) continue
      const districtId = source.districtIds[origin[cell] as number] as string
      const current = tags[cell] as ParcelTags
      const proximity = { ...current.proximity, [source.kind]: { district_id: districtId, distance: s - 1 } }
      tags[cell] = { proximity }
    }
  }
  return tags
}
