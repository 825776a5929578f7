import { type App, type AppOptions, createApp, servicePackage } from '@genesis/common'
import type { FastifySchema } from 'fastify'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { packageRoot } from './paths.js'
import { atlasPageRoutes } from './routes/atlas-page.js'
import { explorerRoutes } from './routes/explorer.js'
import { routes } from './routes/index.js'
import { atlasRoutes, legacyTileRoutes } from './routes/v2/index.js'

/** Its name, version and description, as package.json gives them. */
export const SERVICE = servicePackage(packageRoot)

/**
 * The land app: every route under `/` and again under `/v1` (the spec serves both), and the explorer page
 * at `/`. No listen, no environment, no background jobs.
 */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context)
  const app = await createApp({
    ...SERVICE,
    sql,
    logger,
    config,
    isReady: () => ctx.grid.ready,
  })
  // a grid handed in belongs to the caller
  if (!context?.grid) app.addHook('onClose', () => ctx.grid.close())
  await app.register(async (unprefixed) => {
    // The same operations as under /v1: the OpenAPI document lists those.
    unprefixed.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true } as FastifySchema
    })
    await unprefixed.register(routes, { ctx })
  })
  await app.register(routes, { prefix: '/v1', ctx })
  // atlas-server's surface: /v2 once, and its legacy /v1/tiles.
  await app.register(atlasRoutes, { prefix: '/v2', ctx })
  await app.register(legacyTileRoutes, { prefix: '/v1', ctx })
  await app.register(explorerRoutes, { ctx })
  await app.register(atlasPageRoutes)
  return app
}
