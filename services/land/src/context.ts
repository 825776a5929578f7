import { type Admission, createAdmission, type Sql } from '@genesis/common'
import { AtlasIndex } from './atlas/atlas-view.js'
import type { Config } from './config.js'
import { GridIndex, type GridLogger } from './grid/grid-index.js'
import { DEFAULT_IMAGE_CACHE_BYTES, MapImageRenderer } from './render/image-renderer.js'
import type { MapSource } from './render/types.js'

/** Everything a route needs besides the request: built once per app, from the configuration. */
export interface Context {
  sql: Sql
  config: Config
  /** The in-memory index of the grid: the map, the PNGs and single-parcel reads are served from it. */
  grid: GridIndex
  /** What the PNG routes draw: the grid (a test may hand in a source of its own). */
  map: MapSource
  /** Renders PNGs and keeps the recent ones, shared by the `/` and `/v1` copies of the routes. */
  images: MapImageRenderer
  /** atlas-server's answers (/v2, /v1/tiles) of the grid's views; closed with the app. */
  atlas: AtlasIndex
  /** The bound on large answers (HEAVY_CONCURRENCY, README "Capacity"); renders have theirs inside `images`. */
  largeAnswers: Admission
}

/**
 * A rectangle of more cells than this is a large answer: building or compressing it waits for a turn of
 * `largeAnswers` (a smaller one is little work and never waits behind a flood of large ones).
 */
export const LARGE_ANSWER_CELLS = 2500

/** The grid index as the configuration asks (not started: `start()` builds it from the database). */
export const createGridIndex = (
  sql: Sql,
  config: Config,
  logger?: GridLogger,
  beforeFirstView?: () => Promise<void>,
) =>
  new GridIndex(sql, {
    debounceMs: config.LAND_REFRESH_DEBOUNCE_MS,
    prewarm: config.LAND_PREWARM,
    ...(logger ? { logger } : {}),
    ...(beforeFirstView ? { beforeFirstView } : {}),
  })

/** A bound on one kind of work, with the kit's queue and wait (0 concurrency: no bound). */
const admission = (config: Config, what: string, concurrency: number) =>
  createAdmission({
    concurrency,
    queue: config.ADMISSION_QUEUE,
    maxWaitMs: config.ADMISSION_WAIT_MS,
    retryAfterS: 1,
    what,
  })

/**
 * The grid from the configuration, built before the app answers, unless one is handed in (server.ts hands
 * in its own, to listen and seed before building it; tests too); `overrides` replaces any part.
 */
export async function createContext(
  sql: Sql,
  config: Config,
  overrides: Partial<Context> = {},
  logger?: GridLogger,
): Promise<Context> {
  let grid = overrides.grid
  if (!grid) {
    grid = createGridIndex(sql, config, logger)
    await grid.start()
  }
  return {
    sql,
    config,
    grid,
    map: overrides.map ?? grid,
    images:
      overrides.images ??
      new MapImageRenderer(
        DEFAULT_IMAGE_CACHE_BYTES,
        admission(config, 'map renders', config.LAND_RENDERS_IN_FLIGHT),
        Math.max(1, config.LAND_RENDERS_IN_FLIGHT),
      ),
    atlas: overrides.atlas ?? new AtlasIndex(grid, logger),
    largeAnswers: overrides.largeAnswers ?? admission(config, 'large answers', config.HEAVY_CONCURRENCY),
  }
}
