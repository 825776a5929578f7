// `pnpm --filter @genesis/land reindex`: empties what a chain brought into the database (owners, estates,
// listings, names) and forgets the indexing, keeping the layout, so that the next start indexes the chain
// at LAND_RPC_URL from LAND_START_BLOCK. Against DATABASE_URL, or the embedded database the server would
// open (stop the server first: an embedded database is one process's).
import { openScriptDatabase } from './data-script.js'
import { resetChainData } from './db/chain-state.js'

try {
  const db = await openScriptDatabase()
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
