import type { SessionSettings, Sql } from '../db/database.js'
import type { App } from '../kit/create-app.js'
import { createTestDatabase, type TestDatabase, type TestDatabaseSeed } from './database.js'

export interface TestService {
  db: TestDatabase
  app: App
  /** Closes the app, then drops the database. */
  close(): Promise<void>
}

export interface TestServiceOptions {
  migrationsDir: string
  settings?: SessionSettings
  /** A data set the database starts with (written once into the package's template). */
  seed?: TestDatabaseSeed
  build: (sql: Sql) => Promise<App>
}

/**
 * The test set-up every service shares: a fresh database with the service's migrations (and its session
 * settings, and its seed), and the app built on it by the service's own `buildApp`.
 */
export async function startTestService(options: TestServiceOptions): Promise<TestService> {
  return onTestDatabase(options, async (db) => {
    const app = await options.build(db.sql)
    return { app, close: () => app.close() }
  })
}

/**
 * A test database made as `options` say, and what `start` starts on it; the database is dropped when the
 * start fails, and after what was started is closed.
 */
export async function onTestDatabase<T extends { close(): Promise<void> }>(
  options: Omit<TestServiceOptions, 'build'>,
  start: (db: TestDatabase) => Promise<T>,
): Promise<Omit<T, 'close'> & { db: TestDatabase; close(): Promise<void> }> {
  const db = await createTestDatabase(options)
  try {
    const started = await start(db)
    return {
      ...started,
      db,
      close: async () => {
        await started.close()
        await db.drop()
      },
    }
  } catch (error) {
    await db.drop()
    throw error
  }
}
