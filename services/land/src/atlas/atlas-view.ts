import { createHash } from 'node:crypto'
import { cellIndex, GRID_MAX, GRID_MIN } from '../domain/geometry.js'
import type { GridIndex } from '../grid/grid-index.js'
import { ByteLru, CachedBody } from '../grid/map-body.js'
import type { GridView } from '../grid/view.js'
import {
  buildTileRows,
  filterKey,
  pickFields,
  type Tile,
  type TileField,
  type TileFilter,
  tileJson,
  toLegacyTile,
} from './tiles.js'

/** How long after the last request for it the atlas of each new grid view is still built ahead. */
const BUILD_AHEAD_WHILE_ASKED_MS = 60_000

/** Filtered answers kept per view (bounded): a client polling the same rectangle costs a lookup. */
const FILTERED_CACHE_BYTES = 32 * 1024 * 1024

export type TileShape = 'v2' | 'legacy'

/** Rows built and serialised between two yields to the event loop. */
const ROWS_PER_SLICE = 12
const HEAD = '{"ok":true,"data":{'
const TAIL = '}}'

/**
 * The atlas answers of one grid view: every tile built once, the whole /v2/tiles (and /v1/tiles)
 * serialised once and compressed once per encoding, and the validators every /v2 answer carries.
 */
export class AtlasView {
  readonly tiles: Tile[]
  /** Changes whenever anything an atlas answer shows changes (tiles, descriptions, districts). */
  readonly version: string
  /** When this version appeared, in whole seconds (HTTP dates have no finer grain), strictly increasing. */
  readonly lastModified: number
  private readonly wholeV2: CachedBody
  private wholeLegacy: CachedBody | undefined
  private readonly filtered = new ByteLru<CachedBody>(FILTERED_CACHE_BYTES)

  private constructor(
    readonly grid: GridView,
    tiles: Tile[],
    whole: Buffer,
    previous: AtlasView | undefined,
  ) {
    this.tiles = tiles
    this.wholeV2 = new CachedBody(whole)
    const hash = createHash('sha1').update(whole)
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

  /**
   * Builds and serialises the whole grid in slices of rows that yield to the event loop: ~22 MB of JSON
   * made at once would hold every other request for the whole time.
   */
  static async build(grid: GridView, previous: AtlasView | undefined): Promise<AtlasView> {
    const tiles = new Array<Tile>(grid.data.cells.length)
    const parts: string[] = []
    for (let top = GRID_MAX; top >= GRID_MIN; top -= ROWS_PER_SLICE) {
      const bottom = Math.max(GRID_MIN, top - ROWS_PER_SLICE + 1)
      buildTileRows(grid, tiles, bottom, top)
      for (let y = top; y >= bottom; y--) {
        for (let x = GRID_MIN; x <= GRID_MAX; x++) {
          const tile = tiles[cellIndex(x, y)]!
          parts.push(`"${tile.id}":${tileJson(tile)}`)
        }
      }
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    return new AtlasView(grid, tiles, Buffer.from(`${HEAD}${parts.join(',')}${TAIL}`), previous)
  }

  tile(x: number, y: number): Tile {
    return this.tiles[cellIndex(x, y)]!
  }

  /** The answer to a /tiles query in either shape: the whole grid prepared, a filtered one cached. */
  body(shape: TileShape, filter: TileFilter): CachedBody {
    if (filter.rect === undefined && filter.fields === undefined) {
      if (shape === 'v2') return this.wholeV2
      this.wholeLegacy ??= new CachedBody(
        Buffer.from(serialise(this.tiles, wholeGrid(), (tile) => JSON.stringify(toLegacyTile(tile)))),
      )
      return this.wholeLegacy
    }
    const key = `${shape} ${filterKey(filter)}`
    let body = this.filtered.get(key)
    if (body) return body
    const fields = filter.fields
    const one = tileWriter(shape, fields)
    body = new CachedBody(Buffer.from(serialise(this.tiles, filter.rect ?? wholeGrid(), one)))
    this.filtered.set(key, body)
    return body
  }
}

function tileWriter(shape: TileShape, fields: TileField[] | undefined): (tile: Tile) => string {
  if (shape === 'legacy') {
    const set = fields ? new Set(fields) : undefined
    return (tile) => JSON.stringify(toLegacyTile(tile, set))
  }
  return fields ? (tile) => JSON.stringify(pickFields(tile, fields)) : tileJson
}

const wholeGrid = () => ({ minX: GRID_MIN, minY: GRID_MIN, maxX: GRID_MAX, maxY: GRID_MAX })

/** `{ ok, data: { "x,y": tile } }` for a rectangle, north to south, west to east. */
function serialise(
  tiles: Tile[],
  rect: { minX: number; minY: number; maxX: number; maxY: number },
  write: (tile: Tile) => string,
): string {
  const parts: string[] = []
  for (let y = rect.maxY; y >= rect.minY; y--) {
    for (let x = rect.minX; x <= rect.maxX; x++) {
      const tile = tiles[cellIndex(x, y)]!
      parts.push(`"${tile.id}":${write(tile)}`)
    }
  }
  return `${HEAD}${parts.join(',')}${TAIL}`
}

/**
 * The atlas answers of a grid index, one AtlasView per grid view, made on first use. The `/v2` routes and
 * `/v1/tiles` share it (one per index, whichever plugin asks first).
 */
export class AtlasIndex {
  private readonly views = new WeakMap<GridView, Promise<AtlasView>>()
  private latest: AtlasView | undefined
  /** When a request last asked for the atlas: while that is recent, a new view's atlas is built ahead. */
  private askedAt = Number.NEGATIVE_INFINITY

  constructor(private readonly grid: GridIndex) {
    // Every /v2 answer waits for the current view's atlas (~0.5 s to build for the whole grid): while the
    // chain keeps changing land, the first request after each change would wait that long. So once the
    // atlas is in use, each new view's is built as soon as the view is swapped in, off the request path.
    grid.onView(() => {
      if (Date.now() - this.askedAt > BUILD_AHEAD_WHILE_ASKED_MS) return
      setImmediate(() => {
        this.build(this.grid.current()).catch(() => {})
      })
    })
  }

  /** The current view's atlas; concurrent first requests share one build. */
  current(): Promise<AtlasView> {
    this.askedAt = Date.now()
    return this.build(this.grid.current())
  }

  /** Whether the atlas of `view` is built or being built (for tests). */
  has(view: GridView): boolean {
    return this.views.has(view)
  }

  private build(view: GridView): Promise<AtlasView> {
    let atlas = this.views.get(view)
    if (!atlas) {
      atlas = AtlasView.build(view, this.latest).then((built) => {
        // Only a newer view's atlas may become the one later versions compare with.
        if (!this.latest || built.grid.at >= this.latest.grid.at) this.latest = built
        return built
      })
      // A failed build is not kept: the next request tries again.
      atlas.catch(() => this.views.delete(view))
      this.views.set(view, atlas)
    }
    return atlas
  }
}

const indexes = new WeakMap<GridIndex, AtlasIndex>()

export function atlasIndexOf(grid: GridIndex): AtlasIndex {
  let index = indexes.get(grid)
  if (!index) {
    index = new AtlasIndex(grid)
    indexes.set(grid, index)
  }
  return index
}
