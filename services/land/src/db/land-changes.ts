import { randomBytes } from 'node:crypto'
import type { Queryable } from '@genesis/common'
import type { AssetType } from '../domain/constants.js'
import { GRID_MAX, GRID_MIN } from '../domain/geometry.js'

/** The channel every replica's grid index listens on. */
export const LAND_CHANGED_CHANNEL = 'land_changed'

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7999

/**
 * A change naming more parcels than this asks for a full build instead (an initial sync's batches): past
 * it, re-reading the rows named costs more than reading the whole grid.
 */
const MAX_DELTA_PARCELS = 20_000

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
 * One notification of a change too large for one payload: part `index` (from 0) of `count`, all sent by
 * one transaction under one `token`. PostgreSQL delivers a transaction's notifications together, in order,
 * at its commit: a listener applies the change once it has every part.
 */
export interface DeltaPart {
  token: string
  index: number
  count: number
}

type Kind = keyof LandDelta

/**
 * Collects the rows a transaction of the indexer writes, then names them in notifications sent in the
 * same transaction (one, or as many parts as the names need). `begin` turns the table triggers' own
 * notifications off for that transaction.
 */
export class LandChanges {
  private readonly parcels = new Set<string>()
  private readonly estates = new Set<string>()
  private readonly assets = new Set<string>()
  private all = false

  parcel(x: number, y: number): void {
    this.parcels.add(`${x},${y}`)
  }

  estate(id: string): void {
    this.estates.add(id)
  }

  publication(type: AssetType, assetId: string): void {
    this.assets.add(`${type}:${assetId}`)
  }

  /** The transaction changed more than rows can say (the chain's data emptied): every replica rebuilds. */
  everything(): void {
    this.all = true
  }

  get empty(): boolean {
    return !this.all && this.parcels.size === 0 && this.estates.size === 0 && this.assets.size === 0
  }

  delta(): LandDelta {
    return { parcels: [...this.parcels], estates: [...this.estates], assets: [...this.assets] }
  }

  /**
   * The notifications' payloads: the delta as JSON, in parts when it does not fit one payload, or a full
   * rebuild for a change past what a patch is worth. None when nothing changed.
   */
  payloads(): string[] {
    if (this.empty) return []
    if (this.all || this.parcels.size > MAX_DELTA_PARCELS) return [FULL_REBUILD_PAYLOAD]
    const whole = JSON.stringify(this.delta())
    if (Buffer.byteLength(whole) <= MAX_PAYLOAD_BYTES) return [whole]
    return splitDelta(this.delta())
  }

  /** First statement of the transaction: the triggers stay quiet, this collector speaks at the end. */
  async begin(q: Queryable): Promise<void> {
    await q`select set_config('land.delta', 'on', true)`
  }

  /** Last statement of the transaction (delivered at its commit). Nothing changed: nothing to say. */
  async notify(q: Queryable): Promise<void> {
    const payloads = this.payloads()
    if (payloads.length === 0) return
    await q`select pg_notify(${LAND_CHANGED_CHANNEL}, p) from unnest(${payloads}::text[]) with ordinality as t (p, n) order by n`
  }
}

/** Room in each part for its `part` field and the JSON around the names. */
const PART_OVERHEAD = 96

/** The delta as parts whose payloads each fit, sharing one token. */
function splitDelta(delta: LandDelta): string[] {
  const token = randomBytes(6).toString('hex')
  const parts: LandDelta[] = []
  let part: LandDelta = { parcels: [], estates: [], assets: [] }
  let bytes = PART_OVERHEAD
  for (const kind of ['parcels', 'estates', 'assets'] as Kind[]) {
    for (const name of delta[kind]) {
      const size = Buffer.byteLength(JSON.stringify(name)) + 1
      if (bytes + size > MAX_PAYLOAD_BYTES) {
        parts.push(part)
        part = { parcels: [], estates: [], assets: [] }
        bytes = PART_OVERHEAD
      }
      part[kind].push(name)
      bytes += size
    }
  }
  parts.push(part)
  return parts.map((p, index) => JSON.stringify({ part: `${token}:${index}:${parts.length}`, ...p }))
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string')

const inGrid = (n: number) => n >= GRID_MIN && n <= GRID_MAX
const isGridCell = (id: string) => {
  if (!/^-?\d{1,3},-?\d{1,3}$/.test(id)) return false
  const [x, y] = id.split(',').map(Number) as [number, number]
  return inGrid(x) && inGrid(y)
}

/** A delta notification's payload (with its part, for a change sent in parts), or null for anything else (a table name, `full`, garbage): rebuild all. */
export function parseLandDelta(payload: string): { delta: LandDelta; part?: DeltaPart } | null {
  if (!payload.startsWith('{')) return null
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const { parcels, estates, assets, part } = value as Record<string, unknown>
  if (!isStringArray(parcels) || !isStringArray(estates) || !isStringArray(assets)) return null
  if (!parcels.every(isGridCell)) return null
  if (!assets.every((a) => a.startsWith('parcel:') || a.startsWith('estate:'))) return null
  const delta = { parcels, estates, assets }
  if (part === undefined) return { delta }
  const match = typeof part === 'string' ? /^([0-9a-f]{1,32}):(\d{1,6}):(\d{1,6})$/.exec(part) : null
  if (!match) return null
  const index = Number(match[2])
  const count = Number(match[3])
  if (index >= count) return null
  return { delta, part: { token: match[1]!, index, count } }
}

/** Two deltas as one (the later rows are re-read anyway). */
export function mergeLandDeltas(a: LandDelta, b: LandDelta): LandDelta {
  return {
    parcels: [...new Set([...a.parcels, ...b.parcels])],
    estates: [...new Set([...a.estates, ...b.estates])],
    assets: [...new Set([...a.assets, ...b.assets])],
  }
}
