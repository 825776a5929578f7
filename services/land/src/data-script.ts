import { createLogger, type Database, openServiceDatabase } from '@genesis/common'
import { loadConfig } from './config.js'
import { embeddedDir, migrationsDir } from './paths.js'

/**
 * The database of a data script (seed, import, reindex): the one the server opens (DATABASE_URL, or its
 * embedded store under DATA_DIR), migrated, without the service's query deadline (a long write is not
 * cut), logging warnings only (beside a progress bar or a report).
 */
export async function openScriptDatabase(): Promise<Database> {
  const config = { ...loadConfig(), DB_QUERY_TIMEOUT_MS: 0 }
  return openServiceDatabase({
    service: 'land',
    config,
    migrationsDir,
    logger: createLogger('land', { LOG_LEVEL: 'warn' }),
    embeddedDir: embeddedDir(config),
  })
}
