import { join } from 'node:path'
import type { BaseConfig } from '../config.js'
import type { Logger } from '../kit/logger.js'
import { type Database, openDatabase, type SessionSettings } from './database.js'
import { migrate } from './migrate.js'

export interface ServiceDatabaseOptions {
  service: string
  config: Pick<BaseConfig, 'DATABASE_URL' | 'DATA_DIR'>
  migrationsDir: string
  logger: Logger
  settings?: SessionSettings
}

/**
 * The database of a service, migrated: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR/pglite
 * (DATA_DIR also holds what a service generates for itself, such as keys). `server.ts` and `migrate.ts`
 * both open it this way.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<Database> {
  const db = await openDatabase({
    databaseUrl: options.config.DATABASE_URL,
    dataDir: join(options.config.DATA_DIR, 'pglite'),
    service: options.service,
    settings: options.settings,
    logger: options.logger,
  })
  try {
    await migrate(db.sql, options.migrationsDir)
  } catch (error) {
    await db.close()
    throw error
  }
  options.logger.info({ migrationsDir: options.migrationsDir }, `${options.service}: migrations applied`)
  return db
}
