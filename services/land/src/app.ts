import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type App, appOptionsFromConfig, createApp, type Sql } from '@genesis/common'
import type { Config } from './config.js'
import type { GridIndex } from './grid/grid-index.js'
import { packageRoot } from './paths.js'
import { explorerRoutes } from './routes/explorer.js'
import { landRoutes } from './routes/index.js'
import { mapImageRoutes } from './routes/map-images.js'

export interface AppDeps {
  sql: Sql
  grid: GridIndex
  /** Omitted in tests: the kit's defaults (no logs, no rate limit). */
  config?: Config
}

const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }

/** The land service: the kit plus every land route under `/` and `/v1`. No listen, no environment. */
export async function buildApp({ sql, grid, config }: AppDeps): Promise<App> {
  const app = await createApp({
    name: 'land',
    version,
    description:
      'Genesis City land: districts, parcels, estates, map data, PNG maps, publications, translations',
    sql,
    ...(config ? appOptionsFromConfig(config) : {}),
    isReady: () => grid.ready,
  })
  await app.register(landRoutes, { sql, grid, hideFromDocs: true })
  await app.register(landRoutes, { sql, grid, prefix: '/v1' })
  await app.register(mapImageRoutes, { grid })
  await app.register(mapImageRoutes, { grid, prefix: '/v1' })
  await app.register(explorerRoutes)
  return app
}
