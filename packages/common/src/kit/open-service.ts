import { join } from 'node:path'
import { type BaseConfig, databaseTimeoutsFromConfig, orExit } from '../config.js'
import { databaseStartupProblem, ensureDatabase } from '../db/create-database.js'
import { createSql, type Database, openDatabase, type SessionSettings } from '../db/database.js'
import { EmbeddedDatabaseInUse } from '../db/embedded.js'
import { migrate } from '../db/migrate.js'
import { createLogger, type Logger } from './logger.js'

export interface ServiceDatabaseOptions {
  service: string
  config: Pick<BaseConfig, 'DATABASE_URL' | 'DATA_DIR' | 'DB_CONNECT_TIMEOUT_S' | 'DB_QUERY_TIMEOUT_MS'>
  migrationsDir: string
  logger: Logger
  settings?: SessionSettings
  /** The embedded database's directory under DATA_DIR (default `pglite`). */
  embeddedDir?: string
}

/**
 * The database of a service, migrated: DATABASE_URL (the database is created when it does not exist and
 * the server lets its user), or the embedded PostgreSQL under DATA_DIR/pglite (DATA_DIR also holds what a
 * service generates for itself, such as keys). `server.ts` and `migrate.ts` both open it this way. The pool
 * waits at most DB_CONNECT_TIMEOUT_S / DB_QUERY_TIMEOUT_MS (a 503 rather than a hung request); the
 * migrations run without the query deadline.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<Database> {
  const url = options.config.DATABASE_URL
  if (url && (await ensureDatabase(url, { connectS: options.config.DB_CONNECT_TIMEOUT_S }))) {
    options.logger.info(`${options.service}: created the database ${new URL(url).pathname.slice(1)}`)
  }
  const db = await openDatabase({
    databaseUrl: url,
    dataDir: join(options.config.DATA_DIR, options.embeddedDir ?? 'pglite'),
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
 * every problem and exits 1), the process logger, and the migrated database (a database that is missing
 * and cannot be created, or a server that does not answer, prints one line and exits 1).
 */
export async function openService<Config extends BaseConfig>(options: {
  service: string
  loadConfig: (env: NodeJS.ProcessEnv) => Config
  migrationsDir: string
  settings?: SessionSettings
  /** The embedded database's directory under DATA_DIR, by the configuration (default `pglite`). */
  embeddedDir?: (config: Config) => string
}): Promise<{ config: Config; logger: Logger; db: Database }> {
  const config = orExit(options.service, () => options.loadConfig(process.env))
  const logger = createLogger(options.service, config)
  try {
    const { embeddedDir, ...rest } = options
    const db = await openServiceDatabase({
      ...rest,
      config,
      logger,
      ...(embeddedDir ? { embeddedDir: embeddedDir(config) } : {}),
    })
    return { config, logger, db }
  } catch (error) {
    // Another process has the embedded database, or the server cannot give us ours: one line, no stack trace.
    const problem =
      error instanceof EmbeddedDatabaseInUse
        ? error.message
        : databaseStartupProblem(error, config.DATABASE_URL)
    if (problem === null) throw error
    console.error(`${options.service}: ${problem}`)
    process.exit(1)
  }
}
