import { createLogger, openServiceDatabase, orExit, runService } from '@genesis/common'
import { buildApp, SERVICE_NAME } from './app.js'
import { loadConfig } from './config.js'
import { COLLECTIONS_DB_SETTINGS } from './db/settings.js'
import { migrationsDir } from './paths.js'

const config = orExit(SERVICE_NAME, () => loadConfig(process.env))
const logger = createLogger(SERVICE_NAME, config)
const db = await openServiceDatabase({
  service: SERVICE_NAME,
  config,
  migrationsDir,
  settings: COLLECTIONS_DB_SETTINGS,
  logger,
})
const app = await buildApp({ sql: db.sql, config, logger })

await runService({ app, config, onClose: () => db.close() })
