import { createLogger, openServiceDatabase, orExit } from '@genesis/common'
import { SERVICE_NAME } from './app.js'
import { loadConfig } from './config.js'
import { migrationsDir } from './paths.js'

const config = orExit(SERVICE_NAME, () => loadConfig(process.env))
const logger = createLogger(SERVICE_NAME, config)
const db = await openServiceDatabase({ service: SERVICE_NAME, config, migrationsDir, logger })
await db.close()
