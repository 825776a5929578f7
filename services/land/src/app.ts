import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type App, type AppOptions, appOptionsFromConfig, createApp } from '@genesis/common'
import type { FastifySchema } from 'fastify'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { packageRoot } from './paths.js'
import { explorerRoutes } from './routes/explorer.js'
import { routes } from './routes/index.js'

export const SERVICE_NAME = 'land'
export const { version: SERVICE_VERSION } = JSON.parse(
  readFileSync(join(packageRoot, 'package.json'), 'utf8'),
) as {
  version: string
}

/**
 * The land app: every route under `/` and again under `/v1` (the spec serves both), and the explorer page
 * at `/`. No listen, no environment, no background jobs.
 */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context)
  const app = await createApp({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'Genesis City land: districts, parcels, estates, map data, PNG maps, publications, translations',
    sql,
    logger,
    ...appOptionsFromConfig(config),
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
  await app.register(explorerRoutes, { ctx })
  return app
}
