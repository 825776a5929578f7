import { buildApp as buildClaims } from '@genesis/claims/app'
import { loadConfig as loadClaimsConfig } from '@genesis/claims/config'
import { CLAIMS_DB_SETTINGS } from '@genesis/claims/db/settings'
import { migrationsDir as claimsMigrations } from '@genesis/claims/paths'
import { buildApp as buildCollections } from '@genesis/collections/app'
import {
  type Config as CollectionsConfig,
  loadConfig as loadCollectionsConfig,
} from '@genesis/collections/config'
import { COLLECTIONS_DB_SETTINGS } from '@genesis/collections/db/settings'
import { migrationsDir as collectionsMigrations } from '@genesis/collections/paths'
import { startTestService, type TestService } from '@genesis/common/testing'
import { buildApp as buildLand } from '@genesis/land/app'
import { loadConfig as loadLandConfig } from '@genesis/land/config'
import { migrationsDir as landMigrations } from '@genesis/land/paths'
import { seed } from '@genesis/land/seed'
import { Wallet } from 'ethers'
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
