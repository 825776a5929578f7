import { openService } from '@genesis/common'
import { SERVICE } from './app.js'
import { loadConfig } from './config.js'
import { migrationsDir } from './paths.js'

const { db } = await openService({ service: SERVICE.name, loadConfig, migrationsDir })
await db.close()
