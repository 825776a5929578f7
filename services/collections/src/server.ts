// First of all imports: keeps V8's caches for Node's tick objects across full collections (see the module).
import '@genesis/common/keep-tick-shape'
import { openService, ProviderPool, runService, splitRpcUrls } from '@genesis/common'
import { buildApp, SERVICE } from './app.js'
import { checkChainAtStart } from './chain/chain-identity.js'
import { loadConfig } from './config.js'
import { COLLECTIONS_DB_SETTINGS } from './db/settings.js'
import { readyKeys } from './keys-ready.js'
import { migrationsDir } from './paths.js'

const { config, logger, db } = await openService({
  service: SERVICE.name,
  loadConfig,
  migrationsDir,
  settings: COLLECTIONS_DB_SETTINGS,
})
try {
  await readyKeys(db, config, logger)
} catch (error) {
  await db.close()
  throw error
}
const rpcUrl = config.RPC_URL
if (rpcUrl) {
  const providers = new ProviderPool({
    urls: splitRpcUrls(rpcUrl),
    name: 'RPC_URL',
    timeoutMs: config.RPC_TIMEOUT_MS,
  })
  // another chain than the one this database followed: in production, no start
  const check = await checkChainAtStart(db.sql, config, () => providers.chain(), logger)
  if (check) {
    console.error(check.refused)
    await db.close()
    process.exit(1)
  }
}
const app = await buildApp({ sql: db.sql, config, logger })

await runService({ app, config, onClose: () => db.close() })
