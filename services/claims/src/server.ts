// First of all imports: keeps V8's caches for Node's tick objects across full collections (see the module).
import '@genesis/common/keep-tick-shape'
import { openService, runService } from '@genesis/common'
import { buildApp, destroyChains, SERVICE } from './app.js'
import { createDispenserChains } from './chain/dispenser.js'
import { loadConfig } from './config.js'
import { CLAIMS_DB_SETTINGS } from './db/settings.js'
import { startPeriodic } from './jobs/periodic.js'
import { createReconciler } from './jobs/reconciler.js'
import { sweep } from './jobs/sweeper.js'
import { migrationsDir } from './paths.js'

const { config, logger, db } = await openService({
  service: SERVICE.name,
  loadConfig,
  migrationsDir,
  settings: CLAIMS_DB_SETTINGS,
})
const chains = createDispenserChains(config.rpcUrls, { confirmations: config.CLAIMS_CONFIRMATIONS, logger })
const app = await buildApp({ sql: db.sql, config, logger, context: { chains } })

const sweeper = startPeriodic('sweeper', config.SWEEP_INTERVAL_MS, (signal) => sweep(db.sql, signal), logger)
const reconciler = createReconciler({
  sql: db.sql,
  chains,
  logger,
  graceS: config.RECONCILE_GRACE_S,
  metrics: app.metrics,
  production: config.NODE_ENV === 'production',
})
// a chain whose genesis is not the one its claims were decided on: in production, no start
const refusals = await reconciler.checkChains()
if (refusals.size > 0) {
  for (const reason of refusals.values()) console.error(reason)
  destroyChains(chains)
  await app.close()
  await db.close()
  process.exit(1)
}
const reconciling = startPeriodic(
  'reconciler',
  config.RECONCILE_INTERVAL_MS,
  (signal) => reconciler.tick(signal),
  logger,
)
if (chains.size > 0) {
  logger.info(
    { chains: [...chains.keys()], confirmations: config.CLAIMS_CONFIRMATIONS },
    'reconciler: watching the claims of these chains',
  )
}

await runService({
  app,
  config,
  onClose: async () => {
    await Promise.all([sweeper.stop(), reconciling.stop()])
    destroyChains(chains)
    await db.close()
  },
})
