import { buildApp as buildClaims } from '@genesis/claims/app'
import { CLAIMS_DB_SETTINGS } from '@genesis/claims/db/settings'
import { migrationsDir as claimsMigrations } from '@genesis/claims/paths'
import { loadConfig as loadClaimsConfig } from '@genesis/claims/config'
import { buildApp as buildCollections } from '@genesis/collections/app'
import { type Config, loadConfig as loadConfig } from '@genesis/collections/config'
import { COLLECTIONS_DB_SETTINGS } from '@genesis/collections/db/settings'
import { migrationsDir as collectionsMigrations } from '@genesis/collections/paths'
import { type App, migrate } from '@genesis/common'
import { createTestDatabase, type TestDatabase } from '@genesis/common/testing'
import { buildApp as buildLand } from '@genesis/land/app'
import { GridIndex } from '@genesis/land/grid/grid-index'
import { migrationsDir as landMigrations } from '@genesis/land/paths'
import { seed } from '@genesis/land/seed'
import { Wallet } from 'ethers'
import type { ServiceUrls } from '../src/index.js'

export const ADMIN_TOKEN = 'client-test-admin-token-0123456789'

export interface Running {
  urls: ServiceUrls
  /** The committee member's private key (COMMITTEE_ADDRESSES of collections). */
  committeeKey: string
  collectionsConfig: Config
  close(): Promise<void>
}

interface Part {
  app: App
  db: TestDatabase
  cleanUp?: () => Promise<void>
}

const listen = async (app: App) => app.listen({ port: 0, host: '127.0.0.1' })

/**
 * The three services as their servers run them (real PostgreSQL, one fresh database each, listening on an
 * ephemeral port), chosen by `which`; land is seeded with the Genesis City set.
 */
export async function startServices(
  which: { claims?: boolean; collections?: boolean; land?: boolean } = {
    claims: true,
    collections: true,
    land: true,
  },
): Promise<Running> {
  const parts: Part[] = []
  const urls: ServiceUrls = { claims: '', collections: '', land: '' }
  const committee = Wallet.createRandom()
  const collectionsConfig = loadConfig({ COMMITTEE_ADDRESSES: committee.address })
  try {
    if (which.claims) {
      const db = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
      await migrate(db.sql, claimsMigrations)
      const config = loadClaimsConfig({
        CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
        CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
      })
      const app = await buildClaims({ sql: db.sql, config })
      parts.push({ app, db })
      urls.claims = await listen(app)
    }
    if (which.collections) {
      const db = await createTestDatabase({ settings: COLLECTIONS_DB_SETTINGS })
      await migrate(db.sql, collectionsMigrations)
      const app = await buildCollections({ sql: db.sql, config: collectionsConfig })
      parts.push({ app, db })
      urls.collections = await listen(app)
    }
    if (which.land) {
      const db = await createTestDatabase()
      await migrate(db.sql, landMigrations)
      await seed(db.sql)
      const grid = new GridIndex(db.sql, { debounceMs: 20 })
      await grid.start()
      const app = await buildLand({ sql: db.sql, grid })
      parts.push({ app, db, cleanUp: () => grid.close() })
      urls.land = await listen(app)
    }
  } catch (error) {
    await closeAll(parts)
    throw error
  }
  return { urls, committeeKey: committee.privateKey, collectionsConfig, close: () => closeAll(parts) }
}

async function closeAll(parts: Part[]) {
  for (const part of parts) {
    await part.app.close()
    await part.cleanUp?.()
    await part.db.drop()
  }
}
