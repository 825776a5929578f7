import { type App, type AppOptions, createApp, servicePackage } from '@genesis/common'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { packageRoot } from './paths.js'
import { routes } from './routes/index.js'

/** Its name, version and description, as package.json gives them. */
export const SERVICE = servicePackage(packageRoot)

/** The collections app with every route registered under /v1; no listen, no environment, no background jobs. */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context)
  const app = await createApp({ ...SERVICE, sql, logger, config })
  // a reader handed in belongs to the caller
  const { chain } = ctx
  if (chain && context?.chain === undefined) app.addHook('onClose', async () => chain.destroy())
  await app.register(routes, { prefix: '/v1', ctx })
  if (!chain) {
    app.log.warn(
      'RPC_URL is unset (development): the first signer of an unknown third party becomes its manager, and ' +
        "no contract's deployment or owner is checked before a standard collection is published",
    )
  }
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
