import { type App, type AppOptions, createApp, servicePackage } from '@genesis/common'
import { CHAIN_IDS } from '@genesis/wire/claims'
import type { DispenserChain } from './chain/dispenser.js'
import type { Config } from './config.js'
import { type Context, createContext } from './context.js'
import { packageRoot } from './paths.js'
import { BEARER_DESCRIPTION } from './routes/caller.js'
import { REPLAYED_HEADER } from './routes/claim-transactions.js'
import { routes } from './routes/index.js'

/** Its name, version and description, as package.json gives them. */
export const SERVICE = servicePackage(packageRoot)

/** The claims app with every route registered under /api; no listen, no environment, no background jobs. */
export async function buildApp({ sql, config, logger, context }: AppOptions<Config, Context>): Promise<App> {
  const ctx = await createContext(sql, config, context)
  const app = await createApp({
    ...SERVICE,
    sql,
    logger,
    config,
    bearer: { description: BEARER_DESCRIPTION },
    // A page on another origin reads it through @genesis/client (`replayed`).
    exposeHeaders: [REPLAYED_HEADER],
  })
  await app.register(routes, { prefix: '/api', ctx })
  // providers this app made are its own to close; handed-in ones belong to the caller
  if (!context?.chains) app.addHook('onClose', async () => destroyChains(ctx.chains))
  logUnwatchedChains(app, ctx)
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

export function destroyChains(chains: Map<string, DispenserChain>) {
  for (const chain of chains.values()) chain.destroy()
}

/**
 * One line naming the accepted chains without an RPC URL: their claims are freed by the clock, so a voucher
 * redeemed and never reported could be minted twice (granting there is refused in production).
 */
function logUnwatchedChains(app: App, ctx: Context) {
  const unwatched = CHAIN_IDS.filter((chainId) => !ctx.chains.has(chainId))
  if (unwatched.length === 0) return
  const production = ctx.config.NODE_ENV === 'production'
  app.log[production ? 'warn' : 'info'](
    { chainIds: unwatched, production },
    `claims: no RPC_URL_<chain_id> for chains ${unwatched.join(', ')}: their claims are freed at expires_at ` +
      `without looking at the chain${production ? ' (grants on them are refused)' : ' (development only)'}`,
  )
}
