import { type App, type CreateAppOptions, createApp, type Sql } from '@genesis/common'
import { claimTransactionRoutes } from './routes/claim-transactions.js'
import { rewardRoutes } from './routes/rewards.js'
import { signerRoutes } from './routes/signer.js'
import type { VoucherSigner } from './voucher/voucher.js'

export const SERVICE_NAME = 'claims'
export const SERVICE_VERSION = '1.0.0'

export interface BuildAppOptions {
  sql: Sql
  signer: VoucherSigner
  /** CLAIMS_ADMIN_TOKEN; undefined turns admin calls off (401). */
  adminToken?: string | undefined
  /** CLAIM_TTL_S: seconds from creation to expires_at. */
  claimTtlS?: number
  /** Kit options (logger, CORS, rate limit, signed-fetch age, …). */
  kit?: Omit<CreateAppOptions, 'name' | 'version' | 'sql'>
}

/** The claims app with every route registered under /api; no listen, no environment. */
export async function buildApp(options: BuildAppOptions): Promise<App> {
  const app = await createApp({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Rewards and claim transactions: EIP-712 vouchers for the RewardsDispenser contract',
    sql: options.sql,
    ...options.kit,
  })
  app.decorateRequest('actor', null)
  const routes = { sql: options.sql, signer: options.signer, adminToken: options.adminToken }
  await app.register(
    async (api) => {
      await claimTransactionRoutes(api, { ...routes, claimTtlS: options.claimTtlS ?? 3600 })
      await rewardRoutes(api, routes)
      await signerRoutes(api, routes)
    },
    { prefix: '/api' },
  )
  return app
}
