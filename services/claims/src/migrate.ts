import { join } from 'node:path'
import { migrate, openDatabase } from '@genesis/common'
import { bootLogger } from './boot-logger.js'
import { loadClaimsConfig } from './config.js'
import { migrationsDir } from './paths.js'

const config = loadClaimsConfig(process.env)
const db = await openDatabase({
  databaseUrl: config.DATABASE_URL,
  dataDir: join(config.DATA_DIR, 'pglite'),
  service: 'claims',
  logger: bootLogger,
})
try {
  await migrate(db.sql, migrationsDir)
  bootLogger.info({ migrationsDir }, 'claims: migrations applied')
} finally {
  await db.close()
}
