// `pnpm --filter @genesis/land reindex`: empties what a chain brought into the database (owners, estates,
// listings, names) and forgets the indexing, keeping the layout, so that the next start indexes the chain
// at LAND_RPC_URL from LAND_START_BLOCK. Against DATABASE_URL, or the embedded database the server would
// open (stop the server first: an embedded database is one process's).
import { createLogger, openServiceDatabase } from '@genesis/common'
import { loadConfig } from './config.js'
import { resetChainData } from './db/chain-state.js'
import { embeddedDir, migrationsDir } from './paths.js'

const config = { ...loadConfig(), DB_QUERY_TIMEOUT_MS: 0 }
const logger = createLogger('land', { LOG_LEVEL: 'warn' })
try {
  const db = await openServiceDatabase({
    service: 'land',
    config,
    migrationsDir,
    logger,
    embeddedDir: embeddedDir(config),
  })
  try {
    await db.sql.begin((tx) => resetChainData(tx))
    console.log(
      'land: emptied owners, estates, listings and the indexing; the next start indexes the chain again',
    )
  } finally {
    await db.close()
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
