import { type App, type AppOptions, createApp, servicePackage } from '@genesis/common'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { packageRoot } from './paths.js'
import { routes } from './routes/index.js'

/** Its name, version and description, as package.json gives them. */
export const SERVICE = servicePackage(packageRoot)

/** The claims app with every route registered under /api; no listen, no environment, no background jobs. */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context)
  const app = await createApp({ ...SERVICE, sql, logger, config })
  await app.register(routes, { prefix: '/api', ctx })
  // the address to configure on the contract, and where its key came from
  app.log.info(
    { signer: ctx.signer.address, ...ctx.signerKey },
    `claims voucher signer: ${ctx.signer.address}`,
  )
  if (ctx.admin.source === 'off') {
    app.log.warn('CLAIMS_ADMIN_TOKEN is not set: admin calls (granting rewards) are 401')
  } else if (ctx.admin.source !== 'env') {
    app.log.warn(
      { tokenFile: ctx.admin.path, source: ctx.admin.source },
      `claims development admin token in ${ctx.admin.path} (CLAIMS_ADMIN_TOKEN unset, embedded database, NODE_ENV not production)`,
    )
  }
  return app
}
