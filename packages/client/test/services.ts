// The services are started from their build output by path: app, config and paths are not part of a
// service's public exports (only its schemas are).

import { startTestService, type TestService } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { buildApp as buildClaims } from '../../../services/claims/dist/app.js'
import { loadConfig as loadClaimsConfig } from '../../../services/claims/dist/config.js'
import { CLAIMS_DB_SETTINGS } from '../../../services/claims/dist/db/settings.js'
import { migrationsDir as claimsMigrations } from '../../../services/claims/dist/paths.js'
import { buildApp as buildCollections } from '../../../services/collections/dist/app.js'
import {
  type Config as CollectionsConfig,
  loadConfig as loadCollectionsConfig,
} from '../../../services/collections/dist/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../../../services/collections/dist/db/settings.js'
import { migrationsDir as collectionsMigrations } from '../../../services/collections/dist/paths.js'
import { buildApp as buildLand } from '../../../services/land/dist/app.js'
import { loadConfig as loadLandConfig } from '../../../services/land/dist/config.js'
import { migrationsDir as landMigrations } from '../../../services/land/dist/paths.js'
import { seed } from '../../../services/land/dist/seed.js'
import type { ServiceUrls } from '../src/index.js'

export const ADMIN_TOKEN = 'client-test-admin-token-0123456789'

export interface Running {
  urls: ServiceUrls
  /** The committee member's private key (COMMITTEE_ADDRESSES of collections). */
  committeeKey: string
  collectionsConfig: CollectionsConfig
  close(): Promise<void>
}

const listen = async (service: TestService) => service.app.listen({ port: 0, host: '127.0.0.1' })

/**
 * The three services as their servers build them (real PostgreSQL, one fresh database each, listening on
 * an ephemeral port), chosen by `which`; land is seeded with the Genesis City set.
 */
export async function startServices(
  which: { claims?: boolean; collections?: boolean; land?: boolean } = {
    claims: true,
    collections: true,
    land: true,
  },
): Promise<Running> {
  const started: TestService[] = []
  const urls: ServiceUrls = { claims: '', collections: '', land: '' }
  const committee = Wallet.createRandom()
  const collectionsConfig = loadCollectionsConfig({ COMMITTEE_ADDRESSES: committee.address })
  const start = async (options: Parameters<typeof startTestService>[0]) => {
    const service = await startTestService(options)
    started.push(service)
    return listen(service)
  }
  try {
    if (which.claims) {
      const config = loadClaimsConfig({
        CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
        CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
      })
      urls.claims = await start({
        migrationsDir: claimsMigrations,
        settings: CLAIMS_DB_SETTINGS,
        build: (sql) => buildClaims({ sql, config }),
      })
    }
    if (which.collections) {
      urls.collections = await start({
        migrationsDir: collectionsMigrations,
        settings: COLLECTIONS_DB_SETTINGS,
        build: (sql) => buildCollections({ sql, config: collectionsConfig }),
      })
    }
    if (which.land) {
      const config = loadLandConfig({ LAND_PREWARM: 'false' })
      urls.land = await start({
        migrationsDir: landMigrations,
        build: async (sql) => {
          await seed(sql)
          return buildLand({ sql, config })
        },
      })
    }
  } catch (error) {
    await closeAll(started)
    throw error
  }
  return { urls, committeeKey: committee.privateKey, collectionsConfig, close: () => closeAll(started) }
}

async function closeAll(services: TestService[]) {
  for (const service of services) await service.close()
}
