import type { District, ParcelTags } from '@genesis/wire/land'
import {
  blankParcel,
  type DistrictRecord,
  type EstateRecord,
  type ParcelRecord,
  type PublicationRecord,
} from '../db/rows.js'
import { PLAZA_DISTRICT_ID, ROAD_DISTRICT_ID } from '../domain/constants.js'
import { CELL_COUNT, cellIndex, GRID_MAX, GRID_MIN, GRID_SIZE } from '../domain/geometry.js'
import { TILE_DISTRICT, TILE_OWNED, TILE_PLAZA, TILE_ROAD, TILE_UNOWNED } from '../domain/tiles.js'
import { computeProximityTags, type ProximitySource } from './proximity.js'

/** What one read of the database gives the index; immutable once built. */
export interface GridData {
  /** Every cell of the grid by cellIndex (a cell without a row reads as a blank, unowned parcel). */
  cells: ParcelRecord[]
  estates: Map<string, EstateRecord>
  /** Districts in API shape (parcel_count and center computed from the parcels). */
  districts: District[]
  /** Open publications not expired when loaded, newest first, by `type:asset_id`. */
  open: Map<string, PublicationRecord[]>
  tags: ParcelTags[]
  kind: Uint8Array
  group: Int32Array
  /**
   * The hash of the indexed block the rows were read at (null without a chain, or before its first block):
   * what the explorer keys its tiles and details on, so that it never asks for a block this replica has
   * not read yet.
   */
  blockHash: string | null
}

export interface GridInput {
  parcels: ParcelRecord[]
  estates: EstateRecord[]
  districts: DistrictRecord[]
  open: Map<string, PublicationRecord[]>
  blockHash?: string | null
}

const naturalOrder = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)

export function tileKind(parcel: ParcelRecord): number {
  if (parcel.district_id === ROAD_DISTRICT_ID) return TILE_ROAD
  if (parcel.district_id === PLAZA_DISTRICT_ID) return TILE_PLAZA
  if (parcel.district_id !== null) return TILE_DISTRICT
  return parcel.owner !== null || parcel.estate_id !== null ? TILE_OWNED : TILE_UNOWNED
}

/** The district parcel nearest the centroid of the district's parcels (first in cell order on a tie). */
function centerOf(cells: number[]): string {
  let sumX = 0
  let sumY = 0
  for (const cell of cells) {
    sumX += cell % GRID_SIZE
    sumY += Math.floor(cell / GRID_SIZE)
  }
  const cx = sumX / cells.length
  const cy = sumY / cells.length
  let best = cells[0] as number
  let bestDistance = Number.POSITIVE_INFINITY
  for (const cell of cells) {
    const dx = (cell % GRID_SIZE) - cx
    const dy = Math.floor(cell / GRID_SIZE) - cy
    const d = dx * dx + dy * dy
    if (d < bestDistance) {
      bestDistance = d
      best = cell
    }
  }
  return `${(best % GRID_SIZE) + GRID_MIN},${Math.floor(best / GRID_SIZE) + GRID_MIN}`
}

/**
 * Each cell's group (the parcels drawn as one): its district's, else its estate's, else 0. The numbers are
 * deterministic (sorted ids) so that equal data gives an equal snapshot version.
 */
export function groupsOf(
  cells: readonly ParcelRecord[],
  estateIds: string[],
  districtIds: string[],
): Int32Array {
  const estates = [...estateIds].sort(naturalOrder)
  const estateGroup = new Map(estates.map((id, i) => [id, i + 1]))
  const districtGroup = new Map([...districtIds].sort().map((id, i) => [id, estates.length + i + 1]))
  const group = new Int32Array(CELL_COUNT)
  for (let i = 0; i < CELL_COUNT; i++) {
    const parcel = cells[i] as ParcelRecord
    if (parcel.district_id !== null) group[i] = districtGroup.get(parcel.district_id) ?? 0
    else if (parcel.estate_id !== null) group[i] = estateGroup.get(parcel.estate_id) ?? 0
  }
  return group
}

/**
 * One string per distinct value: the database hands every row its own copy of an owner's address or a
 * district's id, and a grid of 90,601 parcels repeats a few thousand of them (megabytes of the heap).
 */
function interning() {
  const seen = new Map<string, string>()
  return (value: string | null): string | null => {
    if (value === null) return null
    const kept = seen.get(value)
    if (kept !== undefined) return kept
    seen.set(value, value)
    return value
  }
}

export function buildGridData(input: GridInput): GridData {
  const cells: ParcelRecord[] = new Array(CELL_COUNT)
  const intern = interning()
  for (const parcel of input.parcels) {
    parcel.owner = intern(parcel.owner)
    parcel.auction_owner = intern(parcel.auction_owner)
    parcel.district_id = intern(parcel.district_id)
    parcel.estate_id = intern(parcel.estate_id)
    cells[cellIndex(parcel.x, parcel.y)] = parcel
  }
  for (let y = GRID_MIN; y <= GRID_MAX; y++) {
    for (let x = GRID_MIN; x <= GRID_MAX; x++) {
      const i = cellIndex(x, y)
      if (cells[i] === undefined) cells[i] = blankParcel(x, y)
    }
  }

  const kind = new Uint8Array(CELL_COUNT)
  const districtCells = new Map<string, number[]>()
  const roadCells: number[] = []
  const plazaCells: number[] = []
  for (let i = 0; i < CELL_COUNT; i++) {
    const parcel = cells[i] as ParcelRecord
    const k = tileKind(parcel)
    kind[i] = k
    if (parcel.district_id !== null) {
      let list = districtCells.get(parcel.district_id)
      if (!list) {
        list = []
        districtCells.set(parcel.district_id, list)
      }
      list.push(i)
      if (k === TILE_ROAD) roadCells.push(i)
      else if (k === TILE_PLAZA) plazaCells.push(i)
    }
  }
  const group = groupsOf(
    cells,
    input.estates.map((e) => e.id),
    input.districts.map((d) => d.id),
  )

  const sources: ProximitySource[] = [
    { kind: 'road', cells: roadCells, districtIds: roadCells.map(() => ROAD_DISTRICT_ID) },
    { kind: 'plaza', cells: plazaCells, districtIds: plazaCells.map(() => PLAZA_DISTRICT_ID) },
  ]

  const districts: District[] = input.districts.map((d) => {
    const own = districtCells.get(d.id) ?? []
    return {
      id: d.id,
      name: d.name,
      description: d.description,
      link: d.link,
      public: d.public,
      parcel_count: String(own.length),
      center: own.length > 0 ? centerOf(own) : '0,0',
    }
  })

  return {
    cells,
    estates: new Map(input.estates.map((e) => [e.id, e])),
    districts,
    open: input.open,
    tags: computeProximityTags(sources),
    kind,
    group,
    blockHash: input.blockHash ?? null,
  }
}
