import { join } from 'node:path'
import { type BaseConfig, databaseTimeoutsFromConfig, orExit } from '../config.js'
import { createLogger, type Logger } from '../kit/logger.js'
import { createSql, type Database, openDatabase, type SessionSettings } from './database.js'
import { EmbeddedDatabaseInUse } from './embedded.js'
import { migrate } from './migrate.js'

export interface ServiceDatabaseOptions {
  service: string
  config: Pick<BaseConfig, 'DATABASE_URL' | 'DATA_DIR' | 'DB_CONNECT_TIMEOUT_S' | 'DB_QUERY_TIMEOUT_MS'>
  migrationsDir: string
  logger: Logger
  settings?: SessionSettings
}

/**
 * The database of a service, migrated: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR/pglite
 * (DATA_DIR also holds what a service generates for itself, such as keys). `server.ts` and `migrate.ts`
 * both open it this way. The pool waits at most DB_CONNECT_TIMEOUT_S / DB_QUERY_TIMEOUT_MS (a 503 rather
 * than a hung request); the migrations run without the query deadline.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<Database> {
  const db = await openDatabase({
    databaseUrl: options.config.DATABASE_URL,
    dataDir: join(options.config.DATA_DIR, 'pglite'),
    service: options.service,
    timeouts: databaseTimeoutsFromConfig(options.config),
    settings: options.settings,
    logger: options.logger,
  })
  try {
    if (db.embedded) await migrate(db.sql, options.migrationsDir)
    else {
      // Connections of their own (the lock holds one), without the pool's query deadline: a migration may be long.
      const migrator = createSql(db.url, {
        max: 2,
        timeouts: { connectS: options.config.DB_CONNECT_TIMEOUT_S },
      })
      try {
        await migrate(migrator, options.migrationsDir)
      } finally {
        await migrator.end({ timeout: 5 })
      }
    }
  } catch (error) {
    await db.close()
    throw error
  }
  options.logger.info({ migrationsDir: options.migrationsDir }, `${options.service}: migrations applied`)
  return db
}

/**
 * The start of every service process (`server.ts`, `migrate.ts`): the environment read (a bad one prints
 * every problem and exits 1), the process logger, and the migrated database.
 */
export async function openService<Config extends BaseConfig>(options: {
  service: string
  loadConfig: (env: NodeJS.ProcessEnv) => Config
  migrationsDir: string
  settings?: SessionSettings
}): Promise<{ config: Config; logger: Logger; db: Database }> {
  const config = orExit(options.service, () => options.loadConfig(process.env))
  const logger = createLogger(options.service, config)
  const db = await openServiceDatabase({ ...options, config, logger }).catch((error: unknown) => {
    // Another process has the embedded database: one line saying which, not a stack trace.
    if (!(error instanceof EmbeddedDatabaseInUse)) throw error
    console.error(`${options.service}: ${error.message}`)
    process.exit(1)
  })
  return { config, logger, db }
}
