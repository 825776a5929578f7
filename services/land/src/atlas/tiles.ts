import { encodeTokenId } from '@genesis/contracts/land'
import { type LegacyTile, TILE_FIELDS, type Tile, type TileField, type TileType } from '@genesis/wire/land'
import { CELL_COUNT, cellIndex, GRID_MAX, GRID_MIN } from '../domain/geometry.js'
import { TILE_DISTRICT, TILE_OWNED, TILE_PLAZA, TILE_ROAD, TILE_UNOWNED } from '../domain/tiles.js'
import { cellsOf, type Rect } from '../grid/json-rows.js'
import type { GridView } from '../grid/view.js'

/** The legacy numbers (Atlas colours by them); a listing outranks the kind of land. */
export const LEGACY_TYPE = {
  onSale: 10,
  district: 5,
  owned: 9,
  unowned: 11,
  plaza: 8,
  road: 7,
} as const

const TYPE_OF_KIND: Record<number, TileType> = {
  [TILE_UNOWNED]: 'unowned',
  [TILE_OWNED]: 'owned',
  [TILE_DISTRICT]: 'district',
  [TILE_ROAD]: 'road',
  [TILE_PLAZA]: 'plaza',
}

const inGrid = (x: number, y: number) => x >= GRID_MIN && x <= GRID_MAX && y >= GRID_MIN && y <= GRID_MAX

const millis = (iso: string | null | undefined) => (iso ? Date.parse(iso) || 0 : 0)

/**
 * The tiles of row `y` from `fromX` to `toX`, west to east. Joined flags come from the same groups the PNG
 * renderer joins by (one per estate, per district, one for the roads, one for the plazas), so both draw
 * the same shapes. Tiles are made when an answer is serialised and not kept: the serialised rows are.
 * `wanted`: the fields the caller writes; those it lacks among the ones that take work to make (the
 * update time parses dates, the token id is a 256-bit number in decimal) are left at 0 and undefined.
 */
export function tilesOfRow(
  view: GridView,
  y: number,
  fromX = GRID_MIN,
  toX = GRID_MAX,
  wanted?: ReadonlySet<TileField>,
): Tile[] {
  const withUpdatedAt = wanted === undefined || wanted.has('updatedAt')
  const withTokenId = wanted === undefined || wanted.has('tokenId')
  const { cells, estates } = view.data
  const { kind, group } = view
  const districtNames = districtNamesOf(view)
  const joined = (i: number, x: number, y: number) => {
    if (!inGrid(x, y)) return false
    const j = cellIndex(x, y)
    return group[i] !== 0 && group[j] === group[i] && kind[j] === kind[i]
  }
  const tiles = new Array<Tile>(toX - fromX + 1)
  for (let x = fromX; x <= toX; x++) {
    const i = cellIndex(x, y)
    const cell = cells[i]!
    const type = TYPE_OF_KIND[kind[i]!] ?? 'unowned'
    const estate = cell.estate_id === null ? undefined : estates.get(cell.estate_id)
    const publication =
      view.publication('parcel', `${x},${y}`) ??
      (cell.estate_id === null ? null : view.publication('estate', cell.estate_id))
    const special =
      type === 'road'
        ? 'Road'
        : type === 'plaza'
          ? 'Plaza'
          : type === 'district'
            ? (districtNames.get(cell.district_id ?? '') ?? '')
            : ''
    const owner = estate?.owner ?? cell.owner
    // Every field set at once, absent ones undefined: one shape for all tiles (JSON leaves them out).
    tiles[x - fromX] = {
      id: `${x},${y}`,
      x,
      y,
      type,
      name: estate?.name || cell.name || special,
      top: joined(i, x, y + 1),
      left: joined(i, x - 1, y),
      topLeft: joined(i, x - 1, y + 1),
      updatedAt: withUpdatedAt
        ? Math.max(
            millis(cell.last_transferred_at),
            millis(estate?.last_transferred_at),
            publication ? (publication.block_time_updated_at ?? publication.block_time_created_at) : 0,
          )
        : 0,
      owner: owner || undefined,
      estateId: cell.estate_id ?? undefined,
      // Unowned land was never minted: it has no token yet.
      tokenId: owner && withTokenId ? encodeTokenId(x, y).toString() : undefined,
      price: publication ? Number(publication.price) : undefined,
    }
  }
  return tiles
}

const districtNameCache = new WeakMap<GridView, Map<string, string>>()
function districtNamesOf(view: GridView): Map<string, string> {
  let names = districtNameCache.get(view)
  if (!names) {
    names = new Map(view.data.districts.map((d) => [d.id, d.name]))
    districtNameCache.set(view, names)
  }
  return names
}

/**
 * A whole tile's JSON, written by hand (the same bytes as JSON.stringify): the whole grid's tiles are
 * written again after every change, and this skips JSON.stringify's generic walk of each object.
 */
export function tileJson(tile: Tile): string {
  let json = `{"id":"${tile.id}","x":${tile.x},"y":${tile.y},"type":"${tile.type}","name":${JSON.stringify(tile.name)},"top":${tile.top},"left":${tile.left},"topLeft":${tile.topLeft},"updatedAt":${tile.updatedAt}`
  if (tile.owner !== undefined) json += `,"owner":${JSON.stringify(tile.owner)}`
  if (tile.estateId !== undefined) json += `,"estateId":${JSON.stringify(tile.estateId)}`
  if (tile.tokenId !== undefined) json += `,"tokenId":"${tile.tokenId}"`
  if (tile.price !== undefined) json += `,"price":${JSON.stringify(tile.price)}`
  return `${json}}`
}

export function legacyType(tile: Tile): number {
  return tile.price !== undefined ? LEGACY_TYPE.onSale : LEGACY_TYPE[tile.type]
}

/** atlas-server's legacy conversion, limited to the fields asked for (all when `fields` is undefined). */
export function toLegacyTile(tile: Tile, fields?: ReadonlySet<TileField>): LegacyTile {
  const has = (field: TileField) => fields === undefined || fields.has(field)
  const legacy: LegacyTile = {}
  // The number is taken from the whole tile: a listing decides it even when `price` is not asked for.
  if (has('type')) legacy.type = legacyType(tile)
  if (has('x')) legacy.x = tile.x
  if (has('y')) legacy.y = tile.y
  if (has('top') && tile.top) legacy.top = 1
  if (has('left') && tile.left) legacy.left = 1
  if (has('topLeft') && tile.topLeft) legacy.topLeft = 1
  if (has('owner') && tile.owner) legacy.owner = tile.owner
  if (has('name') && tile.name) legacy.name = tile.name
  if (has('estateId') && tile.estateId !== undefined) legacy.estate_id = tile.estateId
  if (has('price') && tile.price !== undefined) legacy.price = tile.price
  return legacy
}

/**
 * The tile's JSON with only `fields`, in their order, absent values left out: the bytes JSON.stringify
 * writes for such an object, written by hand (a filtered answer is made per request, tile by tile).
 */
export function pickedJson(tile: Tile, fields: readonly TileField[]): string {
  let json = ''
  for (const field of fields) {
    const value = tile[field]
    if (value === undefined) continue
    json += json === '' ? '{"' : ',"'
    json += field
    json += '":'
    json +=
      typeof value === 'string'
        ? JSON.stringify(value)
        : typeof value === 'boolean' || Number.isFinite(value)
          ? String(value)
          : 'null'
  }
  return json === '' ? '{}' : `${json}}`
}

export interface TileQuery {
  x1?: string
  y1?: string
  x2?: string
  y2?: string
  include?: string
  exclude?: string
}

/**
 * What a /tiles query asks for, in one canonical form: every spelling of one answer (corners in any
 * order or beyond the grid, fields in any order, repeated, or the whole set) has the same filter, so
 * they share one cache entry and one ETag. Undefined parts mean "all".
 */
export interface TileFilter {
  rect?: Rect
  fields?: TileField[]
}

/** Every rectangle outside the grid, in one spelling. */
const EMPTY_RECT: Rect = { minX: 0, minY: 0, maxX: -1, maxY: -1 }

// atlas-server's test: a non-empty value that `+value` turns into a number (Infinity included).
const asNumber = (value: string | undefined) => {
  if (value === undefined || value.trim() === '') return undefined
  const n = Number(value)
  return Number.isNaN(n) ? undefined : n
}

const namesIn = (value: string) => new Set(value.split(','))

/**
 * The query as atlas-server reads it: the rectangle only when all four corners are numbers (any corner
 * order), `include` (those fields) winning over `exclude` (all but those), unknown field names ignored.
 * Fields come out in the tile's own order, whatever order they were asked in.
 */
export function parseTileFilter(query: TileQuery): TileFilter {
  const filter: TileFilter = {}
  const [x1, y1, x2, y2] = [query.x1, query.y1, query.x2, query.y2].map(asNumber)
  if (x1 !== undefined && y1 !== undefined && x2 !== undefined && y2 !== undefined) {
    // Whole parcels only, and nothing beyond the grid: a rectangle outside it is empty.
    const rect = {
      minX: Math.max(GRID_MIN, Math.ceil(Math.min(x1, x2))),
      maxX: Math.min(GRID_MAX, Math.floor(Math.max(x1, x2))),
      minY: Math.max(GRID_MIN, Math.ceil(Math.min(y1, y2))),
      maxY: Math.min(GRID_MAX, Math.floor(Math.max(y1, y2))),
    }
    if (cellsOf(rect) === 0) filter.rect = EMPTY_RECT
    else if (cellsOf(rect) < CELL_COUNT) filter.rect = rect
  }
  let fields: TileField[] | undefined
  if (query.include) {
    const included = namesIn(query.include)
    fields = TILE_FIELDS.filter((f) => included.has(f))
  } else if (query.exclude) {
    const excluded = namesIn(query.exclude)
    fields = TILE_FIELDS.filter((f) => !excluded.has(f))
  }
  // An empty rectangle is one answer whatever its fields.
  if (fields && fields.length < TILE_FIELDS.length && filter.rect !== EMPTY_RECT) filter.fields = fields
  return filter
}

/** The filter's cache key: equal for equal filters. */
export function filterKey(filter: TileFilter): string {
  const { rect, fields } = filter
  const area = rect ? `${rect.minX},${rect.minY},${rect.maxX},${rect.maxY}` : '*'
  return `${area}|${fields ? fields.join(',') : '*'}`
}
