import { createHash, type Hash } from 'node:crypto'
import { TILE_FIELDS, type Tile, type TileField } from '@genesis/wire/land'
import { GRID_MAX, GRID_MIN, GRID_SIZE } from '../domain/geometry.js'
import type { GridIndex, GridLogger } from '../grid/grid-index.js'
import {
  cellsOf,
  type JsonRow,
  jsonRow,
  type Rect,
  rectSlices,
  rowSlice,
  yieldToLoop,
} from '../grid/json-rows.js'
import { ByteLru, CachedBody } from '../grid/map-body.js'
import type { GridView } from '../grid/view.js'
import { drawParcelView, type ParcelView } from './parcel-view.js'
import { filterKey, pickedJson, type TileFilter, tileJson, tilesOfRow, toLegacyTile } from './tiles.js'

/**
 * How long after the last request for it the atlas of each new grid view is still built ahead (and,
 * after the last /tiles request, keeps its serialised tiles).
 */
const BUILD_AHEAD_WHILE_ASKED_MS = 60_000

/** Filtered answers kept per view, by the bytes they hold (README "Capacity"). */
export const FILTERED_CACHE_BYTES = 32 * 1024 * 1024

export type TileShape = 'v2' | 'legacy'

/** Rows of the grid built between two yields to the event loop. */
const ROWS_PER_SLICE = 12
const HEAD = Buffer.from('{"ok":true,"data":{')
const TAIL = Buffer.from('}}')
const WHOLE_GRID: Rect = { minX: GRID_MIN, minY: GRID_MIN, maxX: GRID_MAX, maxY: GRID_MAX }

/** A tile's JSON in one shape, and the fields it writes (undefined: all of them). */
interface TileWriter {
  write: (tile: Tile) => string
  fields?: ReadonlySet<TileField>
}

/** The fields the legacy shape has (toLegacyTile): it never shows the update time or the token id. */
const LEGACY_FIELDS: ReadonlySet<TileField> = new Set(
  TILE_FIELDS.filter((field) => field !== 'updatedAt' && field !== 'tokenId'),
)

const v2Json: TileWriter = { write: tileJson }
const legacyJson: TileWriter = { write: (tile) => JSON.stringify(toLegacyTile(tile)), fields: LEGACY_FIELDS }

function writerOf(shape: TileShape, fields: TileField[] | undefined): TileWriter {
  if (fields === undefined) return shape === 'v2' ? v2Json : legacyJson
  const set = new Set(fields)
  if (shape === 'legacy') return { write: (tile) => JSON.stringify(toLegacyTile(tile, set)), fields: set }
  return { write: (tile) => pickedJson(tile, fields), fields: set }
}

/** `"x,y":{…}` for each tile of the row (or of its columns fromX..toX). */
const rowItems = (view: GridView, y: number, writer: TileWriter, fromX?: number, toX?: number) =>
  tilesOfRow(view, y, fromX, toX, writer.fields).map((tile) => `"${tile.id}":${writer.write(tile)}`)

/**
 * Every row of the grid in a shape, south to north, in slices of rows that yield to the event loop;
 * `each` takes each row's items.
 */
async function forEachRow(view: GridView, write: TileWriter, each: (y: number, items: string[]) => void) {
  for (let y = GRID_MIN; y <= GRID_MAX; y++) {
    each(y, rowItems(view, y, write))
    if ((y - GRID_MIN) % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await yieldToLoop()
  }
}

/** Every row of the grid in a shape, serialised. */
async function serialiseRows(view: GridView, write: TileWriter): Promise<JsonRow[]> {
  const rows = new Array<JsonRow>(GRID_SIZE)
  await forEachRow(view, write, (y, items) => {
    rows[y - GRID_MIN] = jsonRow(items)
  })
  return rows
}

/**
 * The atlas answers of one grid view: the whole /v2/tiles serialised once, by rows (so a rectangle's
 * answer is one slice per row, no copy), compressed once per encoding, and the validators every /v2
 * answer carries. The legacy /v1/tiles rows are made the first time they are asked for; answers with a
 * field filter are made per request (in slices) and cached, bounded in bytes.
 */
export class AtlasView {
  /** Changes whenever anything an atlas answer shows changes (tiles, descriptions, districts). */
  readonly version: string
  /** When this version appeared, in whole seconds (HTTP dates have no finer grain), strictly increasing. */
  readonly lastModified: number
  private readonly rows: Record<TileShape, Promise<JsonRow[]> | undefined>
  private readonly whole = new Map<TileShape, CachedBody>()
  private readonly filtered = new ByteLru<CachedBody>(FILTERED_CACHE_BYTES)
  private readonly building = new Map<string, Promise<CachedBody>>()
  private parcelViewDrawn: Promise<ParcelView> | undefined
  /** The parcel view once drawn (withParcelView). */
  private parcelViewReady: ParcelView | undefined

  private constructor(
    readonly grid: GridView,
    v2Rows: JsonRow[] | undefined,
    /** The hash of the whole /v2/tiles answer's rows, south to north. */
    hash: Hash,
    previous: AtlasView | undefined,
  ) {
    this.rows = { v2: v2Rows ? Promise.resolve(v2Rows) : undefined, legacy: undefined }
    if (v2Rows) this.whole.set('v2', wholeBody(v2Rows))
    hash.update(grid.data.cells.map((cell) => cell.description).join('\0'))
    for (const [id, estate] of grid.data.estates) hash.update(`${id}\0${estate.description}\0`)
    hash.update(JSON.stringify(grid.data.districts))
    this.version = hash.digest('base64url').slice(0, 20)
    if (previous && previous.version === this.version) {
      this.lastModified = previous.lastModified
    } else {
      const at = Math.ceil(grid.at / 1000) * 1000
      // Two versions within one second must not share a date, or If-Modified-Since would hide the second.
      this.lastModified = previous ? Math.max(at, previous.lastModified + 1000) : at
    }
  }

  /** The explorers' parcel view of this version (parcel-view.ts), drawn once, on first use. */
  parcelView(): Promise<ParcelView> {
    this.parcelViewDrawn ??= drawParcelView(this.grid).then(
      (view) => {
        this.parcelViewReady = view
        return view
      },
      (error: unknown) => {
        this.parcelViewDrawn = undefined // the next request draws it again
        throw error
      },
    )
    return this.parcelViewDrawn
  }

  /** `use` of the parcel view: at once when it is drawn already, else once parcelView() has drawn it. */
  withParcelView<T>(use: (view: ParcelView) => T | Promise<T>): T | Promise<T> {
    return this.parcelViewReady ? use(this.parcelViewReady) : this.parcelView().then(use)
  }

  /**
   * Serialises the whole grid in slices of rows that yield to the event loop: its hash is the version.
   * `keepRows`: keep the serialised rows for the /tiles answers (else they are made again when asked
   * for: a client of the PNGs or the metadata alone does not hold the 20 MB of tiles in memory).
   */
  static async build(grid: GridView, previous: AtlasView | undefined, keepRows = true): Promise<AtlasView> {
    const hash = createHash('sha1')
    const rows = keepRows ? new Array<JsonRow>(GRID_SIZE) : undefined
    await forEachRow(grid, v2Json, (y, items) => {
      if (rows) {
        const row = jsonRow(items)
        rows[y - GRID_MIN] = row
        hash.update(row.bytes)
      } else {
        // the same bytes, hashed as text: nothing is kept
        hash.update(items.join(','))
      }
    })
    return new AtlasView(grid, rows, hash, previous)
  }

  /** The answer, if it is made already or being made: no new work is needed to send it. */
  existing(shape: TileShape, filter: TileFilter): CachedBody | Promise<CachedBody> | undefined {
    if (filter.rect === undefined && filter.fields === undefined) {
      return this.whole.get(shape) ?? this.building.get(keyOf(shape, filter))
    }
    const key = keyOf(shape, filter)
    return this.filtered.get(key) ?? this.building.get(key)
  }

  /** The answer to a /tiles query in either shape; concurrent requests for one answer share the work. */
  body(shape: TileShape, filter: TileFilter): Promise<CachedBody> {
    const made = this.existing(shape, filter)
    if (made) return Promise.resolve(made)
    const key = keyOf(shape, filter)
    const building = this.make(shape, filter).finally(() => this.building.delete(key))
    this.building.set(key, building)
    return building
  }

  private async make(shape: TileShape, filter: TileFilter): Promise<CachedBody> {
    const rect = filter.rect ?? WHOLE_GRID
    let body: CachedBody
    if (filter.fields === undefined) {
      const rows = await this.rowsOf(shape)
      if (filter.rect === undefined) {
        body = wholeBody(rows)
        this.whole.set(shape, body)
        return body
      }
      const slices = await rectSlices(rect, (y) => rowSlice(rows[y - GRID_MIN]!, rect.minX, rect.maxX), false)
      const shared = slices.reduce((n, slice) => n + slice.length, 0)
      body = new CachedBody([HEAD, ...slices, TAIL], shared)
    } else {
      const write = writerOf(shape, filter.fields)
      const slices = await rectSlices(
        rect,
        (y) => Buffer.from(rowItems(this.grid, y, write, rect.minX, rect.maxX).join(',')),
        true,
      )
      body = new CachedBody([HEAD, ...slices, TAIL])
    }
    this.filtered.set(keyOf(shape, filter), body)
    return body
  }

  private rowsOf(shape: TileShape): Promise<JsonRow[]> {
    let rows = this.rows[shape]
    if (!rows) {
      rows = serialiseRows(this.grid, shape === 'v2' ? v2Json : legacyJson)
      rows.catch(() => {
        this.rows[shape] = undefined
      })
      this.rows[shape] = rows
    }
    return rows
  }
}

const keyOf = (shape: TileShape, filter: TileFilter) => `${shape} ${filterKey(filter)}`

/** `{ ok, data: { "x,y": tile, … } }` of every row, north to south: slices, no copy. */
function wholeBody(rows: JsonRow[]): CachedBody {
  const chunks: Buffer[] = [HEAD]
  for (let y = GRID_MAX; y >= GRID_MIN; y--) {
    if (y < GRID_MAX) chunks.push(Buffer.from(','))
    chunks.push(rows[y - GRID_MIN]!.bytes)
  }
  chunks.push(TAIL)
  const shared = rows.reduce((n, row) => n + row.bytes.length, 0)
  return new CachedBody(chunks, shared)
}

/** Whether a filter's answer is large: building or compressing it takes a turn (README "Capacity"). */
export const filterCells = (filter: TileFilter) =>
  filter.rect ? cellsOf(filter.rect) : GRID_SIZE * GRID_SIZE

/**
 * The atlas answers of a grid index, one AtlasView per grid view, made on first use; a member of the
 * app's context (the `/v2` routes and `/v1/tiles` share it), closed with the app.
 */
export class AtlasIndex {
  private readonly views = new WeakMap<GridView, Promise<AtlasView>>()
  /** The atlases built, for answers that need not wait (built()). */
  private readonly builtViews = new WeakMap<GridView, AtlasView>()
  private latest: AtlasView | undefined
  /** When a request last asked for the atlas: while that is recent, a new view's atlas is built ahead. */
  private askedAt = Number.NEGATIVE_INFINITY
  /** When a request last asked for /tiles: while that is recent, a new view's atlas keeps its tile rows. */
  private tilesAskedAt = Number.NEGATIVE_INFINITY
  private readonly stopListening: () => void
  private closed = false

  constructor(
    private readonly grid: GridIndex,
    private readonly logger?: GridLogger,
  ) {
    // Every /v2 answer waits for the current view's atlas (the whole grid serialised): while the chain
    // keeps changing land, the first request after each change would wait for that. So once the atlas is in use, each new view's is built as soon as the view is swapped in, off
    // the request path.
    this.stopListening = grid.onView((view) => {
      if (this.closed || Date.now() - this.askedAt > BUILD_AHEAD_WHILE_ASKED_MS) return
      setImmediate(() => {
        if (this.closed) return
        this.build(view).catch((err) => {
          // The next request builds it again (a failed build is not kept) and answers its error.
          this.logger?.error({ err }, 'building the atlas of a new grid view failed')
        })
      })
    })
  }

  /** The current view's atlas; concurrent first requests share one build. `forTiles`: a /tiles request. */
  current(forTiles = false): Promise<AtlasView> {
    this.askedAt = Date.now()
    if (forTiles) this.tilesAskedAt = this.askedAt
    return this.build(this.grid.current())
  }

  /**
   * `use` of the current view's atlas: at once when it is built already (a hot read makes no promise),
   * else once current() has it.
   */
  withAtlas<T>(use: (atlas: AtlasView) => T | Promise<T>): T | Promise<T> {
    this.askedAt = Date.now()
    const built = this.builtViews.get(this.grid.current())
    return built ? use(built) : this.current().then(use)
  }

  /** Whether the atlas of `view` is built or being built (for tests). */
  has(view: GridView): boolean {
    return this.views.has(view)
  }

  /** Stops building ahead (the grid's listener is removed); current() still answers. */
  close(): void {
    this.closed = true
    this.stopListening()
  }

  private build(view: GridView): Promise<AtlasView> {
    let atlas = this.views.get(view)
    if (!atlas) {
      const keepRows = Date.now() - this.tilesAskedAt <= BUILD_AHEAD_WHILE_ASKED_MS
      atlas = AtlasView.build(view, this.latest, keepRows).then((built) => {
        // Only a newer view's atlas may become the one later versions compare with.
        if (!this.latest || built.grid.at >= this.latest.grid.at) this.latest = built
        this.builtViews.set(view, built)
        return built
      })
      // A failed build is not kept: the next request tries again.
      atlas.catch(() => this.views.delete(view))
      this.views.set(view, atlas)
    }
    return atlas
  }
}
