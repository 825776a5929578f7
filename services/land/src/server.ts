import { openService, runService } from '@genesis/common'
import { buildApp, SERVICE } from './app.js'
import { type Config, loadConfig } from './config.js'
import { createGridIndex } from './context.js'
import { isLandEmpty } from './db/assets.js'
import { migrationsDir } from './paths.js'
import { seed } from './seed.js'

const shouldSeed = (config: Config, embedded: boolean) =>
  config.LAND_AUTO_SEED === 'always' || (config.LAND_AUTO_SEED === 'embedded' && embedded)

// Listen at once (readiness stays 503), then seed an empty database when configured and build the index;
// from then on the index follows the database (LISTEN, or in-process refreshes on the embedded default,
// where NOTIFY does not cross connections).
const { config, logger, db } = await openService({ service: SERVICE.name, loadConfig, migrationsDir })
const grid = createGridIndex(db.sql, config, logger)
const app = await buildApp({ sql: db.sql, config, logger, context: { grid } })

await runService({
  app,
  config,
  onClose: async () => {
    await grid.close()
    await db.close()
  },
})
if (!db.embedded) await grid.listen()
if (shouldSeed(config, db.embedded) && (await isLandEmpty(db.sql))) {
  logger.info('land: empty database, loading the Genesis City demo set')
  const started = Date.now()
  const summary = await seed(db.sql)
  logger.info({ ...summary, ms: Date.now() - started }, 'land: Genesis City seeded')
}
await grid.start()
