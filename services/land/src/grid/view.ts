import { createHash } from 'node:crypto'
import { okJson } from '@genesis/common'
import { assetKey, type PublicationRecord } from '../db/rows.js'
import { cellIndex, cellOfParcelId, GRID_MAX, GRID_MIN } from '../domain/geometry.js'
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
 * Every parcel's `{ ok, data }` answer back to back in one Buffer, with its offsets: the whole grid
 * serialised as two objects, off the V8 heap: one cached string per parcel nearly doubled the heap the
 * garbage collector walks (BENCHMARKS.md, session 2).
 */
class ParcelAnswers {
  constructor(
    private readonly bytes: Buffer,
    private readonly offsets: Uint32Array,
  ) {}

  envelope(i: number): Buffer {
    return this.bytes.subarray(this.offsets[i], this.offsets[i + 1])
  }

  json(i: number): Buffer {
    return this.bytes.subarray(
      (this.offsets[i] as number) + ENVELOPE_HEAD,
      (this.offsets[i + 1] as number) - ENVELOPE_TAIL,
    )
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

  /**
   * Serialises every parcel's answer, then the whole-grid /map answer and its gzip and br forms, in
   * slices that yield to the event loop: no request pays for it, none waits long behind it. Stops once
   * the view is no longer current.
   */
  async prewarm(stillCurrent: () => boolean): Promise<void> {
    const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
    const answers = new Array<string>(this.kind.length)
    const offsets = new Uint32Array(this.kind.length + 1)
    for (let y = GRID_MAX; y >= GRID_MIN; y--) {
      if (!stillCurrent()) return
      for (let x = GRID_MIN; x <= GRID_MAX; x++)
        answers[cellIndex(x, y)] = okJson(JSON.stringify(this.parcel(x, y)))
      if (y % 8 === 0) await yieldToLoop()
    }
    for (let i = 0; i < answers.length; i++)
      offsets[i + 1] = (offsets[i] as number) + Buffer.byteLength(answers[i] as string)
    this.parcelAnswers = new ParcelAnswers(Buffer.from(answers.join('')), offsets)
    if (!stillCurrent()) return
    const whole = this.mapBody(WHOLE_GRID)
    await whole.encoded('gzip')
    if (stillCurrent()) await whole.encoded('br')
  }

  districts(): CachedBody {
    this.districtsBody ??= new CachedBody(Buffer.from(okJson(JSON.stringify(this.data.districts))))
    return this.districtsBody
  }
}

export const WHOLE_GRID: Rect = { minX: GRID_MIN, minY: GRID_MIN, maxX: GRID_MAX, maxY: GRID_MAX }
