import type { Queryable } from '@genesis/common'
import type { AssetType } from '../domain/constants.js'
import { GRID_MAX, GRID_MIN } from '../domain/geometry.js'

/** The channel every replica's grid index listens on. */
export const LAND_CHANGED_CHANNEL = 'land_changed'

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7999

/** The payload that asks every replica to rebuild its whole grid (as a table name does). */
export const FULL_REBUILD_PAYLOAD = 'full'

/** What one transaction changed in the land tables, as the grid index needs to know it. */
export interface LandDelta {
  /** Parcels as canonical `x,y`. */
  parcels: string[]
  /** Estate ids. */
  estates: string[]
  /** The assets whose publications changed, as `type:asset_id` (see assetKey). */
  assets: string[]
}

/**
 * Collects the rows a transaction of the indexer writes, then names them in one notification sent in the
 * same transaction. `begin` turns the table triggers' own notifications off for that transaction.
 */
export class LandChanges {
  private readonly parcels = new Set<string>()
  private readonly estates = new Set<string>()
  private readonly assets = new Set<string>()

  parcel(x: number, y: number): void {
    this.parcels.add(`${x},${y}`)
  }

  estate(id: string): void {
    this.estates.add(id)
  }

  publication(type: AssetType, assetId: string): void {
    this.assets.add(`${type}:${assetId}`)
  }

  get empty(): boolean {
    return this.parcels.size === 0 && this.estates.size === 0 && this.assets.size === 0
  }

  delta(): LandDelta {
    return { parcels: [...this.parcels], estates: [...this.estates], assets: [...this.assets] }
  }

  /** The notification's payload: the delta as JSON, or a full rebuild when it would not fit. */
  payload(): string {
    const json = JSON.stringify(this.delta())
    return Buffer.byteLength(json) <= MAX_PAYLOAD_BYTES ? json : FULL_REBUILD_PAYLOAD
  }

  /** First statement of the transaction: the triggers stay quiet, this collector speaks at the end. */
  async begin(q: Queryable): Promise<void> {
    await q`select set_config('land.delta', 'on', true)`
  }

  /** Last statement of the transaction (delivered at its commit). Nothing changed: nothing to say. */
  async notify(q: Queryable): Promise<void> {
    if (this.empty) return
    await q`select pg_notify(${LAND_CHANGED_CHANNEL}, ${this.payload()})`
  }
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string')

const inGrid = (n: number) => n >= GRID_MIN && n <= GRID_MAX
const isGridCell = (id: string) => {
  if (!/^-?\d{1,3},-?\d{1,3}$/.test(id)) return false
  const [x, y] = id.split(',').map(Number) as [number, number]
  return inGrid(x) && inGrid(y)
}

/** A delta notification's payload, or null for anything else (a table name, `full`, garbage): rebuild all. */
export function parseLandDelta(payload: string): LandDelta | null {
  if (!payload.startsWith('{')) return null
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const { parcels, estates, assets } = value as Record<string, unknown>
  if (!isStringArray(parcels) || !isStringArray(estates) || !isStringArray(assets)) return null
  if (!parcels.every(isGridCell)) return null
  if (!assets.every((a) => a.startsWith('parcel:') || a.startsWith('estate:'))) return null
  return { parcels, estates, assets }
}

/** Two deltas as one (the later rows are re-read anyway). */
export function mergeLandDeltas(a: LandDelta, b: LandDelta): LandDelta {
  return {
    parcels: [...new Set([...a.parcels, ...b.parcels])],
    estates: [...new Set([...a.estates, ...b.estates])],
    assets: [...new Set([...a.assets, ...b.assets])],
  }
}
