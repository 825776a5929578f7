import type { RoutePlugin } from '@genesis/common'
import type { Context } from '../context.js'
import { claimTransactionRoutes } from './claim-transactions.js'
import { rewardRoutes } from './rewards.js'
import { signerRoutes } from './signer.js'

/** Every route of the service, mounted under /api by app.ts. */
export const routes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.decorateRequest('actor', null)
  await app.register(claimTransactionRoutes, { ctx })
  await app.register(rewardRoutes, { ctx })
  await app.register(signerRoutes, { ctx })
}
