import { type App, type AppOptions, createApp, servicePackage } from '@genesis/common'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { packageRoot } from './paths.js'
import { routes } from './routes/index.js'

/** Its name, version and description, as package.json gives them. */
export const SERVICE = servicePackage(packageRoot)

/**
 * The land app: the API under `/` and again under `/v1` (clients of either path keep working), and the
 * explorer page at `/` (routes/index.ts mounts them). No listen, no environment, no background jobs.
 */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context, logger)
  const app = await createApp({
    ...SERVICE,
    sql,
    logger,
    config,
    isReady: () => ctx.grid.ready,
  })
  // what was handed in belongs to the caller
  app.addHook('onClose', async () => {
    if (!context?.atlas) ctx.atlas.close()
    if (!context?.grid) await ctx.grid.close()
  })
  await app.register(routes, { ctx })
  return app
}
