import { openService } from '@genesis/common'
import { SERVICE } from './app.js'
import { loadConfig } from './config.js'
import { readyKeys } from './keys-ready.js'
import { migrationsDir } from './paths.js'

const { config, logger, db } = await openService({ service: SERVICE.name, loadConfig, migrationsDir })
try {
  await readyKeys(db, config, logger)
} finally {
  await db.close()
}
