import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The package root, whether this file runs from src/ (tsx, vitest) or dist/ (node): both sit one level
 * below it, so the data and migrations shipped inside the package are found the same way.
 */
export const packageRoot = fileURLToPath(new URL('..', import.meta.url))
export const migrationsDir = join(packageRoot, 'migrations')
export const dataDir = join(packageRoot, 'data')

/**
 * The embedded database's directory under DATA_DIR: a land that follows a chain keeps its own, apart from
 * the demo set's, so that the two never mix (seed, import and reindex open the same one as the server).
 */
export const embeddedDir = (config: { LAND_RPC_URL?: string | undefined }) =>
  config.LAND_RPC_URL ? 'pglite-chain' : 'pglite'
