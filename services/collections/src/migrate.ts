import { migrate, openDatabase } from '@genesis/common'
import { loadConfigOrExit } from './config.js'
import { migrationsDir } from './paths.js'

const config = loadConfigOrExit()
const db = await openDatabase({
  databaseUrl: config.DATABASE_URL,
  dataDir: config.DATA_DIR,
  service: 'collections',
})
try {
  await migrate(db.sql, migrationsDir)
  console.log(`collections: migrations applied (${migrationsDir})`)
} finally {
  await db.close()
}
