import { join } from 'node:path'
import {
  appOptionsFromConfig,
  databaseTimeoutsFromConfig,
  migrate,
  openDatabase,
  runService,
} from '@genesis/common'
import { buildApp } from './app.js'
import { bootLogger } from './boot-logger.js'
import { loadClaimsConfig } from './config.js'
import { CLAIMS_DB_SETTINGS } from './db/settings.js'
import { startPeriodic } from './lifecycle/periodic.js'
import { createProviders, createReconciler } from './lifecycle/reconciler.js'
import { sweep } from './lifecycle/sweeper.js'
import { migrationsDir } from './paths.js'
import { loadSignerKey } from './voucher/signer-key.js'
import { createVoucherSigner } from './voucher/voucher.js'

const config = loadClaimsConfig(process.env)
const key = await loadSignerKey({ privateKey: config.CLAIMS_SIGNER_PRIVATE_KEY, dataDir: config.DATA_DIR })
const signer = createVoucherSigner(key.privateKey)
const db = await openDatabase({
  databaseUrl: config.DATABASE_URL,
  timeouts: databaseTimeoutsFromConfig(config),
  dataDir: join(config.DATA_DIR, 'pglite'),
  service: 'claims',
  logger: bootLogger,
  settings: CLAIMS_DB_SETTINGS,
})
await migrate(db.sql, migrationsDir)

const app = await buildApp({
  sql: db.sql,
  signer,
  adminToken: config.CLAIMS_ADMIN_TOKEN,
  claimTtlS: config.CLAIM_TTL_S,
  kit: appOptionsFromConfig(config),
})
app.log.info(
  { signer: signer.address, source: key.source, ...(key.path ? { keyFile: key.path } : {}) },
  `claims voucher signer: ${signer.address}`,
)
if (!config.CLAIMS_ADMIN_TOKEN)
  app.log.warn('CLAIMS_ADMIN_TOKEN is not set: admin calls (granting rewards) are 401')

const sweeper = startPeriodic('sweeper', config.SWEEP_INTERVAL_MS, () => sweep(db.sql), app.log)
const providers = createProviders(config.rpcUrls)
const reconciler = createReconciler({
  sql: db.sql,
  providers,
  logger: app.log,
  graceS: config.RECONCILE_GRACE_S,
})
const reconciling = startPeriodic(
  'reconciler',
  config.RECONCILE_INTERVAL_MS,
  () => reconciler.tick(),
  app.log,
)
if (providers.size > 0) app.log.info({ chains: [...providers.keys()] }, 'reconciler: watching pending claims')

await runService({
  app,
  port: config.PORT,
  host: config.HOST,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onClose: async () => {
    await Promise.all([sweeper.stop(), reconciling.stop()])
    for (const provider of providers.values()) provider.destroy()
    await db.close()
  },
})
