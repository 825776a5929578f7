import { openService, runService } from '@genesis/common'
import { buildApp, SERVICE } from './app.js'
import { type Config, loadConfig } from './config.js'
import { createGridIndex } from './context.js'
import { isLandEmpty } from './db/assets.js'
import { indexerFromConfig } from './indexer/from-config.js'
import { seedLayout } from './indexer/layout.js'
import { embeddedDir, migrationsDir } from './paths.js'
import { seedInChildProcess } from './seed.js'

const shouldSeed = (config: Config, embedded: boolean) =>
  config.LAND_AUTO_SEED === 'always' || (config.LAND_AUTO_SEED === 'embedded' && embedded)

// Listen at once (readiness stays 503), then seed an empty database when configured and build the index;
// from then on the index follows the database (LISTEN, or the indexer's own word on the embedded default,
// where NOTIFY does not cross connections).
const { config, logger, db } = await openService({
  service: SERVICE.name,
  loadConfig,
  migrationsDir,
  embeddedDir,
})
const grid = createGridIndex(db.sql, config, logger)
const app = await buildApp({ sql: db.sql, config, logger, context: { grid } })
const close = async () => {
  await indexer?.stop()
  await grid.close()
  await db.close()
}
// With LAND_RPC_URL, owners, estates and listings follow the chain (one writer across replicas). A database
// holding another chain's data, or data no chain brought, is refused: the process says why and exits 1.
const indexer = indexerFromConfig(db.sql, config, logger, {
  metrics: app.metrics,
  ...(db.embedded ? { onChange: (payload) => grid.noticed(payload) } : {}),
  onRefused: (reason) => {
    logger.error(reason)
    void app
      .close()
      .then(close)
      .finally(() => process.exit(1))
  },
})

await runService({ app, config, onClose: close })
if (config.LAND_PUBLIC_URL && !process.env.LAND_PUBLIC_URL) {
  logger.info(`land: token metadata links to ${config.LAND_PUBLIC_URL} (LAND_PUBLIC_URL not set)`)
}
if (!db.embedded) await grid.listen()
if (indexer && config.LAND_AUTO_SEED !== 'never' && (await isLandEmpty(db.sql))) {
  // following a chain: only what is not on chain (districts, contributions); owners come from the chain
  logger.info('land: empty database, loading the Genesis City layout to follow the chain')
  await seedLayout(db.sql)
} else if (!indexer && shouldSeed(config, db.embedded) && (await isLandEmpty(db.sql))) {
  logger.info('land: empty database, loading the Genesis City demo set')
  const started = Date.now()
  // from a process of its own: its heap's growth is not this process's for good
  const summary = await seedInChildProcess(db.url)
  logger.info({ ...summary, ms: Date.now() - started }, 'land: Genesis City seeded')
}
await grid.start()
indexer?.start()
