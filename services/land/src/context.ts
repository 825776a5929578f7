import type { Sql } from '@genesis/common'
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
}

/** The grid index as the configuration asks (not started: `start()` builds it from the database). */
export const createGridIndex = (sql: Sql, config: Config, logger?: GridLogger) =>
  new GridIndex(sql, {
    debounceMs: config.LAND_REFRESH_DEBOUNCE_MS,
    prewarm: config.LAND_PREWARM,
    ...(logger ? { logger } : {}),
  })

/**
 * The grid from the configuration, built before the app answers, unless one is handed in (server.ts hands
 * in its own, to listen and seed before building it; tests too); `overrides` replaces any part.
 */
export async function createContext(
  sql: Sql,
  config: Config,
  overrides: Partial<Context> = {},
): Promise<Context> {
  let grid = overrides.grid
  if (!grid) {
    grid = createGridIndex(sql, config)
    await grid.start()
  }
  return {
    sql,
    config,
    grid,
    map: overrides.map ?? grid,
    images: overrides.images ?? new MapImageRenderer(DEFAULT_IMAGE_CACHE_BYTES),
  }
}
