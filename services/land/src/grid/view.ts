import { createHash } from 'node:crypto'
import { okJson } from '@genesis/common'
import { assetKey, type PublicationRecord } from '../db/rows.js'
import { CELL_COUNT, cellIndex, cellOfParcelId, GRID_MAX, GRID_MIN, GRID_SIZE } from '../domain/geometry.js'
import type { MapSnapshot } from '../render/types.js'
import type { GridData } from './data.js'
import { ByteLru, CachedBody } from './map-body.js'
import { activePublication } from './records.js'
import { toEstate, toParcel } from './serialize.js'

export interface Rect {
  minX: number
  minY: number
  maxX: number
  maxY: number
}

const MAP_CACHE_BYTES = 96 * 1024 * 1024
/** `{"ok":true,"data":` and `}` around each parcel's JSON. */
const ENVELOPE_TAIL = 1
const ENVELOPE_HEAD = Buffer.byteLength(okJson('')) - ENVELOPE_TAIL
const COMMA = Buffer.from(',')

/**
 * Every parcel's `{ ok, data }` answer, one Buffer per row of the grid with the row's offsets: the whole
 * grid serialised as a few hundred objects, off the V8 heap (one cached string per parcel nearly doubled
 * the heap the garbage collector walks, BENCHMARKS.md, session 2). By rows so that a later view shares the
 * rows nothing changed in, by reference: copying the grid's 37 MB for every block took 0.3–0.9 s here.
 */
class ParcelAnswers {
  constructor(
    /** Row r holds the cells of y = r + GRID_MIN, west to east (cellIndex order). */
    readonly rows: Buffer[],
    /** Per row, the start of each cell's answer in it, and the row's length last. */
    readonly offsets: Uint32Array[],
  ) {}

  envelope(i: number): Buffer {
    const row = Math.floor(i / GRID_SIZE)
    const col = i - row * GRID_SIZE
    const offsets = this.offsets[row]!
    return this.rows[row]!.subarray(offsets[col], offsets[col + 1])
  }

  json(i: number): Buffer {
    const envelope = this.envelope(i)
    return envelope.subarray(ENVELOPE_HEAD, envelope.length - ENVELOPE_TAIL)
  }
}

/** One row's answers as a ParcelAnswers row. */
function answerRow(parts: Buffer[]): { row: Buffer; offsets: Uint32Array } {
  const offsets = new Uint32Array(parts.length + 1)
  for (let c = 0; c < parts.length; c++) offsets[c + 1] = (offsets[c] as number) + parts[c]!.length
  return { row: Buffer.concat(parts, offsets[parts.length]), offsets }
}

/**
 * The grid as it reads at one moment: GridData plus which publications are active. Publications expire
 * with time alone, so a view is valid until the first active one expires; after that the index derives
 * a new view from the same data. Serialised JSON is cached per view.
 */
export class GridView implements MapSnapshot {
  readonly version: string
  readonly kind: Uint8Array
  readonly group: Int32Array
  readonly onSale: Uint8Array
  /** Epoch ms at which an active publication expires and this view goes stale (Infinity if never). */
  readonly validUntil: number
  private readonly active = new Map<string, PublicationRecord>()
  /** Made by prewarm; until then (or without it) parcels are serialised on demand. */
  private parcelAnswers: ParcelAnswers | undefined
  /**
   * When prewarm carried the answers over from an earlier view: how many it serialised anew (the cells whose
   * record or publication differs). Undefined when it serialised every parcel, or has not run.
   */
  reserialised: number | undefined
  private readonly estateJsonCache = new Map<string, string>()
  private readonly mapCache = new ByteLru<CachedBody>(MAP_CACHE_BYTES)
  private districtsBody: CachedBody | undefined

  constructor(
    readonly data: GridData,
    readonly at: number,
  ) {
    this.kind = data.kind
    this.group = data.group
    this.onSale = new Uint8Array(data.kind.length)
    let validUntil = Number.POSITIVE_INFINITY
    for (const [key, publications] of data.open) {
      const publication = activePublication(publications, at)
      if (!publication) continue
      this.active.set(key, publication)
      validUntil = Math.min(validUntil, publication.expires_at)
      if (publication.type === 'parcel') {
        const { x, y } = cellOfParcelId(publication.asset_id)
        this.onSale[cellIndex(x, y)] = 1
      } else {
        for (const p of data.estates.get(publication.asset_id)?.parcels ?? [])
          this.onSale[cellIndex(p.x, p.y)] = 1
      }
    }
    this.validUntil = validUntil
    this.version = createHash('sha1')
      .update(this.kind)
      .update(new Uint8Array(this.group.buffer, this.group.byteOffset, this.group.byteLength))
      .update(this.onSale)
      .digest('base64url')
      .slice(0, 20)
  }

  publication(type: 'parcel' | 'estate', assetId: string): PublicationRecord | null {
    return this.active.get(assetKey(type, assetId)) ?? null
  }

  parcel(x: number, y: number) {
    const i = cellIndex(x, y)
    return toParcel(this.data.cells[i]!, this.data.tags[i]!, this.publication('parcel', `${x},${y}`))
  }

  private parcelJson(x: number, y: number): Buffer {
    return this.parcelAnswers?.json(cellIndex(x, y)) ?? Buffer.from(JSON.stringify(this.parcel(x, y)))
  }

  /** `{ ok, data: parcel }` as bytes, ready to send: once prewarmed, the single-parcel read does no work. */
  parcelEnvelope(x: number, y: number): Buffer {
    return (
      this.parcelAnswers?.envelope(cellIndex(x, y)) ?? Buffer.from(okJson(JSON.stringify(this.parcel(x, y))))
    )
  }

  estate(id: string) {
    const record = this.data.estates.get(id)
    return record ? toEstate(record, this.publication('estate', id)) : undefined
  }

  estateJson(id: string): string | undefined {
    let json = this.estateJsonCache.get(id)
    if (json === undefined) {
      const estate = this.estate(id)
      if (!estate) return undefined
      json = JSON.stringify(estate)
      this.estateJsonCache.set(id, json)
    }
    return json
  }

  /** `{ ok, data: { assets: { parcels, estates }, total } }` for a rectangle, north to south, west to east. */
  mapBody(rect: Rect): CachedBody {
    const key = `${rect.minX},${rect.minY},${rect.maxX},${rect.maxY}`
    let body = this.mapCache.get(key)
    if (body) return body
    const chunks: Buffer[] = [Buffer.from(okJson('{"assets":{"parcels":[').slice(0, -1))]
    const estates: string[] = []
    const seen = new Set<string>()
    let parcels = 0
    for (let y = rect.maxY; y >= rect.minY; y--) {
      for (let x = rect.minX; x <= rect.maxX; x++) {
        if (parcels++ > 0) chunks.push(COMMA)
        chunks.push(this.parcelJson(x, y))
        const estateId = this.data.cells[cellIndex(x, y)]!.estate_id
        if (estateId !== null && !seen.has(estateId)) {
          seen.add(estateId)
          const json = this.estateJson(estateId)
          if (json !== undefined) estates.push(json)
        }
      }
    }
    chunks.push(Buffer.from(`],"estates":[${estates.join(',')}]},"total":${parcels + estates.length}}}`))
    body = new CachedBody(Buffer.concat(chunks))
    this.mapCache.set(key, body)
    return body
  }

  /** True once every parcel's answer is serialised (by prewarm). */
  get prewarmed(): boolean {
    return this.parcelAnswers !== undefined
  }

  private parcelAt(i: number) {
    return this.parcel((i % GRID_SIZE) + GRID_MIN, Math.floor(i / GRID_SIZE) + GRID_MIN)
  }

  /**
   * Serialises every parcel's answer, then the whole-grid /map answer and its gzip and br forms, in
   * slices that yield to the event loop: no request pays for it, none waits long behind it. Stops once
   * the view is no longer current. With an earlier prewarmed `previous` view of the same layout, its
   * answers are carried over and only the parcels that differ are serialised (a batch of the chain changes
   * a handful of the 90,601); the whole-grid /map then waits `wholeMapDelayMs` for the view to stay current
   * (while blocks keep coming, it is made on demand instead of for every block).
   */
  async prewarm(stillCurrent: () => boolean, previous?: GridView, wholeMapDelayMs = 0): Promise<void> {
    const carried = previous ? this.carryAnswers(previous) : undefined
    if (carried) this.parcelAnswers = carried
    else if (!(await this.serialiseAll(stillCurrent))) return
    if (wholeMapDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, wholeMapDelayMs).unref())
    if (!stillCurrent()) return
    const whole = this.mapBody(WHOLE_GRID)
    await whole.encoded('gzip')
    if (stillCurrent()) await whole.encoded('br')
  }

  private async serialiseAll(stillCurrent: () => boolean): Promise<boolean> {
    const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
    const rows = new Array<Buffer>(GRID_SIZE)
    const offsets = new Array<Uint32Array>(GRID_SIZE)
    for (let y = GRID_MAX; y >= GRID_MIN; y--) {
      if (!stillCurrent()) return false
      const parts = new Array<Buffer>(GRID_SIZE)
      for (let x = GRID_MIN; x <= GRID_MAX; x++)
        parts[x - GRID_MIN] = Buffer.from(okJson(JSON.stringify(this.parcel(x, y))))
      const made = answerRow(parts)
      rows[y - GRID_MIN] = made.row
      offsets[y - GRID_MIN] = made.offsets
      if (y % 8 === 0) await yieldToLoop()
    }
    this.parcelAnswers = new ParcelAnswers(rows, offsets)
    return stillCurrent()
  }

  /**
   * The earlier view's answers with the parcels that differ serialised anew (their rows rebuilt, the other
   * rows shared), or undefined when it has none. A parcel's answer is its record, its proximity tags and
   * its own active publication (toParcel): unchanged records, tags and publications are the very same
   * objects (applyDelta keeps them), so identity tells.
   */
  private carryAnswers(previous: GridView): ParcelAnswers | undefined {
    const before = previous.parcelAnswers
    if (!before || previous.data.tags !== this.data.tags) return undefined
    const cells = this.data.cells
    const old = previous.data.cells
    const changed = new Uint8Array(CELL_COUNT)
    for (let i = 0; i < CELL_COUNT; i++) if (cells[i] !== old[i]) changed[i] = 1
    const markPublications = (a: Map<string, PublicationRecord>, b: Map<string, PublicationRecord>) => {
      for (const [key, publication] of a) {
        if (publication.type !== 'parcel' || b.get(key) === publication) continue
        const { x, y } = cellOfParcelId(publication.asset_id)
        changed[cellIndex(x, y)] = 1
      }
    }
    markPublications(this.active, previous.active)
    markPublications(previous.active, this.active)

    const rows = before.rows.slice()
    const offsets = before.offsets.slice()
    let reserialised = 0
    for (let row = 0; row < GRID_SIZE; row++) {
      const first = row * GRID_SIZE
      if (changed.subarray(first, first + GRID_SIZE).indexOf(1) === -1) continue
      const parts = new Array<Buffer>(GRID_SIZE)
      for (let col = 0; col < GRID_SIZE; col++) {
        const i = first + col
        if (changed[i]) {
          parts[col] = Buffer.from(okJson(JSON.stringify(this.parcelAt(i))))
          reserialised++
        } else parts[col] = before.envelope(i)
      }
      const made = answerRow(parts)
      rows[row] = made.row
      offsets[row] = made.offsets
    }
    this.reserialised = reserialised
    return new ParcelAnswers(rows, offsets)
  }

  districts(): CachedBody {
    this.districtsBody ??= new CachedBody(Buffer.from(okJson(JSON.stringify(this.data.districts))))
    return this.districtsBody
  }
}

export const WHOLE_GRID: Rect = { minX: GRID_MIN, minY: GRID_MIN, maxX: GRID_MAX, maxY: GRID_MAX }
