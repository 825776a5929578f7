import { type App, appOptionsFromConfig, createApp, type Sql } from '@genesis/common'
import type { FastifyServerOptions } from 'fastify'
import type { ChainReader } from './chain/chain-reader.js'
import type { CollectionsConfig } from './config.js'
import { createContext } from './context.js'
import { registerAddressRoutes } from './routes/addresses.js'
import { registerCollectionRoutes } from './routes/collections.js'
import { registerCurationRoutes } from './routes/curation.js'
import { registerItemRoutes } from './routes/items.js'
import { registerReviewRoutes } from './routes/reviews.js'

export interface AppDeps {
  sql: Sql
  config: CollectionsConfig
  /** Overrides the reader built from RPC_URL (null: no chain checks). */
  chain?: ChainReader | null
  /** Pino options; false (the default) for no logs. */
  logger?: FastifyServerOptions['logger']
}

export const SERVICE_VERSION = '1.0.0'

export async function buildApp(deps: AppDeps): Promise<App> {
  const app = await createApp({
    ...appOptionsFromConfig(deps.config),
    logger: deps.logger ?? false,
    name: 'collections',
    version: SERVICE_VERSION,
    description: 'Collections of wearables and emotes: creation, items, lock, terms, publication, curation',
    sql: deps.sql,
  })
  const ctx = createContext(deps.sql, deps.config, deps.chain)
  if (deps.chain === undefined && ctx.chain) {
    const chain = ctx.chain
    app.addHook('onClose', async () => chain.destroy())
  }
  registerCollectionRoutes(app, ctx)
  registerCurationRoutes(app, ctx)
  registerItemRoutes(app, ctx)
  registerReviewRoutes(app, ctx)
  registerAddressRoutes(app, ctx)
  return app
}
