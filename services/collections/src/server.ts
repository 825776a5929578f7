import { databaseTimeoutsFromConfig, migrate, openDatabase, runService } from '@genesis/common'
import { buildApp } from './app.js'
import { loadConfigOrExit } from './config.js'
import { COLLECTIONS_DB_SETTINGS } from './db/settings.js'
import { committeeOf } from './dev-committee.js'
import { migrationsDir } from './paths.js'

const config = loadConfigOrExit()

/** Start-up lines before the app (and its pino logger) exist, in the same JSON-lines shape. */
const startupLog = (level: 'info' | 'warn') => (first: string | object, msg?: string) =>
  console.log(
    JSON.stringify({
      level,
      time: Date.now(),
      service: 'collections',
      ...(typeof first === 'string' ? { msg: first } : { ...first, msg }),
    }),
  )

const db = await openDatabase({
  databaseUrl: config.DATABASE_URL,
  timeouts: databaseTimeoutsFromConfig(config),
  dataDir: config.DATA_DIR,
  service: 'collections',
  settings: COLLECTIONS_DB_SETTINGS,
  logger: { info: startupLog('info'), warn: startupLog('warn') },
})
await migrate(db.sql, migrationsDir)
const committee = await committeeOf(config)
const app = await buildApp({
  sql: db.sql,
  config: { ...config, COMMITTEE_ADDRESSES: committee.addresses },
  logger: { level: config.LOG_LEVEL },
})
if (committee.source === 'none')
  app.log.warn('COMMITTEE_ADDRESSES is empty: nobody can read approval data or list unpublished collections')
else if (committee.source !== 'env')
  app.log.warn(
    { committee: committee.addresses, keyFile: committee.path, source: committee.source },
    `collections development committee member ${committee.addresses} (key in ${committee.path}; COMMITTEE_ADDRESSES unset, embedded database, NODE_ENV not production)`,
  )
const address = await runService({
  app,
  port: config.PORT,
  host: config.HOST,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onClose: () => db.close(),
})
app.log.info(`collections listening on ${address}`)
