import { type App, type AppOptions, appOptionsFromConfig, createApp } from '@genesis/common'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { routes } from './routes/index.js'

export const SERVICE_NAME = 'collections'
export const SERVICE_VERSION = '1.0.0'

/** The collections app with every route registered under /v1; no listen, no environment, no background jobs. */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context)
  const app = await createApp({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Collections of wearables and emotes: creation, items, lock, terms, publication, review',
    sql,
    logger,
    ...appOptionsFromConfig(config),
  })
  // a reader handed in belongs to the caller
  const { chain } = ctx
  if (chain && context?.chain === undefined) app.addHook('onClose', async () => chain.destroy())
  await app.register(routes, { prefix: '/v1', ctx })
  const committee = ctx.committeeSource
  if (committee.source === 'none') {
    app.log.warn(
      'COMMITTEE_ADDRESSES is empty: nobody can read approval data or list unpublished collections',
    )
  } else if (committee.source !== 'env') {
    app.log.warn(
      { committee: committee.addresses, keyFile: committee.path, source: committee.source },
      `collections development committee member ${committee.addresses} (key in ${committee.path}; COMMITTEE_ADDRESSES unset, embedded database, NODE_ENV not production)`,
    )
  }
  return app
}
