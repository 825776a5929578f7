import { openService, runService } from '@genesis/common'
import { buildApp, SERVICE } from './app.js'
import { loadConfig } from './config.js'
import { CLAIMS_DB_SETTINGS } from './db/settings.js'
import { startPeriodic } from './jobs/periodic.js'
import { createProviders, createReconciler } from './jobs/reconciler.js'
import { sweep } from './jobs/sweeper.js'
import { migrationsDir } from './paths.js'

const { config, logger, db } = await openService({
  service: SERVICE.name,
  loadConfig,
  migrationsDir,
  settings: CLAIMS_DB_SETTINGS,
})
const app = await buildApp({ sql: db.sql, config, logger })

const sweeper = startPeriodic('sweeper', config.SWEEP_INTERVAL_MS, () => sweep(db.sql), logger)
const providers = createProviders(config.rpcUrls)
const reconciler = createReconciler({
  sql: db.sql,
  providers,
  logger,
  graceS: config.RECONCILE_GRACE_S,
})
const reconciling = startPeriodic('reconciler', config.RECONCILE_INTERVAL_MS, () => reconciler.tick(), logger)
if (providers.size > 0) logger.info({ chains: [...providers.keys()] }, 'reconciler: watching pending claims')

await runService({
  app,
  config,
  onClose: async () => {
    await Promise.all([sweeper.stop(), reconciling.stop()])
    for (const provider of providers.values()) provider.destroy()
    await db.close()
  },
})
