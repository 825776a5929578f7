import { type App, type AppOptions, appOptionsFromConfig, createApp } from '@genesis/common'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { routes } from './routes/index.js'

export const SERVICE_NAME = 'claims'
export const SERVICE_VERSION = '1.0.0'

/** The claims app with every route registered under /api; no listen, no environment, no background jobs. */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context)
  const app = await createApp({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Rewards and claim transactions: EIP-712 vouchers for the RewardsDispenser contract',
    sql,
    logger,
    ...appOptionsFromConfig(config),
  })
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
