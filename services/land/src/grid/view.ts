import { createHash } from 'node:crypto'
import { okJson } from '@genesis/common'
import { assetKey, type PublicationRecord } from '../db/rows.js'
import { CELL_COUNT, cellIndex, cellOfParcelId, GRID_MAX, GRID_MIN, GRID_SIZE } from '../domain/geometry.js'
import type { MapSnapshot } from '../render/types.js'
import type { GridData } from './data.js'
import {
  cellsOf,
  type JsonRow,
  jsonRow,
  type Rect,
  ROWS_PER_SLICE,
  rectSlices,
  rowSlice,
  yieldToLoop,
} from './json-rows.js'
import { ByteLru, CachedBody } from './map-body.js'
import { activePublication } from './records.js'
import { toEstate, toParcel } from './serialize.js'

export type { Rect }

/** `/map` answers of rectangles kept per view, by the bytes they hold of their own (README "Capacity"). */
export const MAP_CACHE_BYTES = 32 * 1024 * 1024
/** Whole `/parcels/:x/:y` answers kept per view (README "Capacity"): about 1 MiB. */
export const PARCEL_ANSWERS_KEPT = 2048
const ENVELOPE_HEAD = Buffer.from(okJson('').slice(0, -1))
const ENVELOPE_TAIL = Buffer.from('}')
const MAP_HEAD = Buffer.from(okJson('{"assets":{"parcels":[').slice(0, -1))

/**
 * Every parcel's JSON, one buffer per row of the grid (JsonRow): the whole grid serialised as a few
 * hundred objects, off the V8 heap (one cached string per parcel nearly doubled the heap the garbage
 * collector walks). A parcel's answer is its slice in an envelope, and a `/map` rectangle is one slice per
 * row, so the whole-grid `/map` costs no second copy. By rows so that a later view shares the rows nothing
 * changed in, by reference: copying the grid's JSON for every block would be more work than the block.
 */
class ParcelAnswers {
  /** rows[r] holds the cells of y = r + GRID_MIN. */
  constructor(readonly rows: JsonRow[]) {}

  json(i: number): Buffer {
    const r = Math.floor(i / GRID_SIZE)
    const x = i - r * GRID_SIZE + GRID_MIN
    return rowSlice(this.rows[r]!, x, x)
  }
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
  /** Answers being built, so that concurrent requests for one rectangle share the work. */
  private readonly mapBuilds = new Map<string, Promise<CachedBody>>()
  /** The whole-grid `/map`, kept apart from the bounded cache: prewarm makes it, no rectangle evicts it. */
  private wholeMap: CachedBody | undefined
  private districtsBody: CachedBody | undefined
  /** The envelopes of the parcels asked for lately, by cell: a repeated read copies nothing. */
  private readonly parcelEnvelopes = new Map<number, Buffer>()

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

  /**
   * `{ ok, data: parcel }` as bytes, ready to send: once prewarmed, the single-parcel read serialises nothing,
   * and a parcel asked for again is answered with the same bytes.
   */
  parcelEnvelope(x: number, y: number): Buffer {
    const i = cellIndex(x, y)
    let envelope = this.parcelEnvelopes.get(i)
    if (envelope === undefined) {
      const json = this.parcelJson(x, y)
      envelope = Buffer.concat([ENVELOPE_HEAD, json, ENVELOPE_TAIL], json.length + ENVELOPE_HEAD.length + 1)
      // Full: start again rather than keep order on every read; the parcels asked for most come back first.
      if (this.parcelEnvelopes.size >= PARCEL_ANSWERS_KEPT) this.parcelEnvelopes.clear()
      this.parcelEnvelopes.set(i, envelope)
    }
    return envelope
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

  /** The rectangle's `/map` answer if it is made already, or being made for another request. */
  existingMapBody(rect: Rect): CachedBody | Promise<CachedBody> | undefined {
    if (isWholeGrid(rect) && this.wholeMap) return this.wholeMap
    const key = rectKey(rect)
    return this.mapCache.get(key) ?? this.mapBuilds.get(key)
  }

  /**
   * `{ ok, data: { assets: { parcels, estates }, total } }` for a rectangle, north to south, west to east.
   * Once prewarmed, the parcels are slices of the rows (no copy); before, they are serialised here, in
   * slices of rows that yield to the event loop. Concurrent requests for one rectangle share one build.
   */
  mapBody(rect: Rect): Promise<CachedBody> {
    const made = this.existingMapBody(rect)
    if (made) return Promise.resolve(made)
    const key = rectKey(rect)
    const building = this.buildMapBody(rect).finally(() => this.mapBuilds.delete(key))
    this.mapBuilds.set(key, building)
    return building
  }

  private async buildMapBody(rect: Rect): Promise<CachedBody> {
    const answers = this.parcelAnswers
    const slices = await rectSlices(
      rect,
      (y) =>
        answers
          ? rowSlice(answers.rows[y - GRID_MIN]!, rect.minX, rect.maxX)
          : Buffer.from(this.rowParcelsJson(y, rect.minX, rect.maxX)),
      answers === undefined,
    )
    const estates: string[] = []
    const seen = new Set<string>()
    for (let y = rect.maxY; y >= rect.minY; y--) {
      for (let x = rect.minX; x <= rect.maxX; x++) {
        const estateId = this.data.cells[cellIndex(x, y)]!.estate_id
        if (estateId === null || seen.has(estateId)) continue
        seen.add(estateId)
        const json = this.estateJson(estateId)
        if (json !== undefined) estates.push(json)
      }
    }
    const tail = Buffer.from(
      `],"estates":[${estates.join(',')}]},"total":${cellsOf(rect) + estates.length}}}`,
    )
    const shared = answers ? slices.reduce((n, slice) => n + slice.length, 0) : 0
    const body = new CachedBody([MAP_HEAD, ...slices, tail], shared)
    if (isWholeGrid(rect)) this.wholeMap = body
    else this.mapCache.set(rectKey(rect), body)
    return body
  }

  /** The JSON of parcels `fromX`..`toX` of row `y`, comma-separated. */
  private rowParcelsJson(y: number, fromX: number, toX: number): string {
    const parts = new Array<string>(toX - fromX + 1)
    for (let x = fromX; x <= toX; x++) parts[x - fromX] = JSON.stringify(this.parcel(x, y))
    return parts.join(',')
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
    const whole = await this.mapBody(WHOLE_GRID)
    await whole.encoded('gzip')
    if (stillCurrent()) await whole.encoded('br')
  }

  private async serialiseAll(stillCurrent: () => boolean): Promise<boolean> {
    const rows = new Array<JsonRow>(GRID_SIZE)
    for (let y = GRID_MAX; y >= GRID_MIN; y--) {
      if (!stillCurrent()) return false
      rows[y - GRID_MIN] = jsonRow(this.rowParts(y))
      if (y % ROWS_PER_SLICE === 0) await yieldToLoop()
    }
    this.parcelAnswers = new ParcelAnswers(rows)
    return stillCurrent()
  }

  private rowParts(y: number): string[] {
    const parts = new Array<string>(GRID_SIZE)
    for (let x = GRID_MIN; x <= GRID_MAX; x++) parts[x - GRID_MIN] = JSON.stringify(this.parcel(x, y))
    return parts
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
    let reserialised = 0
    for (let row = 0; row < GRID_SIZE; row++) {
      const first = row * GRID_SIZE
      if (changed.subarray(first, first + GRID_SIZE).indexOf(1) === -1) continue
      const parts = new Array<string | Buffer>(GRID_SIZE)
      for (let col = 0; col < GRID_SIZE; col++) {
        const i = first + col
        if (changed[i]) {
          parts[col] = JSON.stringify(this.parcelAt(i))
          reserialised++
        } else parts[col] = before.json(i)
      }
      rows[row] = jsonRow(parts)
    }
    this.reserialised = reserialised
    return new ParcelAnswers(rows)
  }

  districts(): CachedBody {
    this.districtsBody ??= new CachedBody(Buffer.from(okJson(JSON.stringify(this.data.districts))))
    return this.districtsBody
  }
}

export const WHOLE_GRID: Rect = { minX: GRID_MIN, minY: GRID_MIN, maxX: GRID_MAX, maxY: GRID_MAX }

/** One key per rectangle (its bounds are ordered and within the grid already). */
export const rectKey = (rect: Rect) => `${rect.minX},${rect.minY},${rect.maxX},${rect.maxY}`

const isWholeGrid = (rect: Rect) =>
  rect.minX <= GRID_MIN && rect.minY <= GRID_MIN && rect.maxX >= GRID_MAX && rect.maxY >= GRID_MAX
