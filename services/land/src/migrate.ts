import { migrate, openDatabase } from '@genesis/common'
import { loadConfig } from './config.js'
import { migrationsDir } from './paths.js'

/** `pnpm --filter @genesis/land migrate`: applies the migrations and exits (a pre-deploy job). */
const config = loadConfig()
const db = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, service: 'land' })
try {
  await migrate(db.sql, migrationsDir)
  console.log('land: migrations applied')
} finally {
  await db.close()
}
