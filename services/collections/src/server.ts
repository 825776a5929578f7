import { openService, runService } from '@genesis/common'
import { buildApp, SERVICE } from './app.js'
import { loadConfig } from './config.js'
import { COLLECTIONS_DB_SETTINGS } from './db/settings.js'
import { readyKeys } from './keys-ready.js'
import { migrationsDir } from './paths.js'

const { config, logger, db } = await openService({
  service: SERVICE.name,
  loadConfig,
  migrationsDir,
  settings: COLLECTIONS_DB_SETTINGS,
})
try {
  await readyKeys(db, config, logger)
} catch (error) {
  await db.close()
  throw error
}
const app = await buildApp({ sql: db.sql, config, logger })

await runService({ app, config, onClose: () => db.close() })
