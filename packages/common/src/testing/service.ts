import type { SessionSettings, Sql } from '../db/database.js'
import { migrate } from '../db/migrate.js'
import type { App } from '../kit/create-app.js'
import { createTestDatabase, type TestDatabase } from './database.js'

export interface TestService {
  db: TestDatabase
  app: App
  /** Closes the app, then drops the database. */
  close(): Promise<void>
}

/**
 * The test set-up every service shares: a fresh database with the service's migrations (and its session
 * settings), and the app built on it by the service's own `buildApp`.
 */
export async function startTestService(options: {
  migrationsDir: string
  settings?: SessionSettings
  build: (sql: Sql) => Promise<App>
}): Promise<TestService> {
  const db = await createTestDatabase({ settings: options.settings })
  try {
    await migrate(db.sql, options.migrationsDir)
    const app = await options.build(db.sql)
    return {
      db,
      app,
      close: async () => {
        await app.close()
        await db.drop()
      },
    }
  } catch (error) {
    await db.drop()
    throw error
  }
}
