/**
 * The collections app for a bench, as server.ts builds it: a fresh database, migrated, its keys ready, the
 * app listening on a loopback port. `env` is the service's environment (RPC_URL, the committee…).
 */
import { migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { registryDomainOf } from '../src/context.js'
import { completeKeys } from '../src/db/keys.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { keyFunctions } from '../src/keys-ready.js'
import { migrationsDir } from '../src/paths.js'

export async function startBenchService(env: Record<string, string> = {}) {
  const config = loadConfig(env)
  const db = await createTestDatabase({ settings: COLLECTIONS_DB_SETTINGS })
  await migrate(db.sql, migrationsDir)
  await completeKeys(db.sql, {
    ...keyFunctions(registryDomainOf(config)),
    log: { info: () => {}, warn: () => {} },
  })
  const app = await buildApp({ sql: db.sql, config })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    url,
    db,
    close: async () => {
      await app.close()
      await db.drop()
    },
  }
}
