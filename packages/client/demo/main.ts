/**
 * `pnpm demo`: every flow of the three services that `pnpm start` runs, step by step, with @genesis/client.
 * Exits 0 when every step answered as documented, 1 (naming the step and the answer) otherwise.
 *
 *   CLAIMS_URL, COLLECTIONS_URL, LAND_URL   base URLs (default http://localhost:3001, 3002, 3003)
 *   CLAIMS_ADMIN_TOKEN                      the operator's token (default: kept in DATA_DIR/claims or .data/claims)
 *   COMMITTEE_PRIVATE_KEY                   a committee member's key (default: kept in DATA_DIR/collections or .data/collections)
 *   CHAIN_NETWORK, THIRD_PARTY_REGISTRY_*   as given to the collections service (same defaults)
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serviceDataDir } from '@genesis/common'
// The collections service's own config defaults, from its build output (not a public export of the service).
import { loadConfig } from '../../../services/collections/dist/config.js'
import { GenesisApiError, LOCAL_SERVICE_URLS, type ServiceUrls } from '../src/index.js'
import { runDemo } from './flows.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))

class Unprepared extends Error {}

function kept(variable: string, file: string, hint: string): string {
  const fromEnv = process.env[variable]
  if (fromEnv) return fromEnv
  try {
    return readFileSync(file, 'utf8').trim()
  } catch {
    throw new Unprepared(`${variable} is not set and ${file} does not exist: ${hint}`)
  }
}

async function ready(urls: ServiceUrls) {
  const down: string[] = []
  for (const [name, url] of Object.entries(urls)) {
    const answer = await fetch(`${url}/health/ready`).catch(() => undefined)
    if (!answer?.ok) down.push(`${name} (${url}: ${answer ? `HTTP ${answer.status}` : 'no answer'})`)
  }
  if (down.length > 0)
    throw new Unprepared(
      `not ready: ${down.join(', ')}. Start the services first (pnpm start, in another terminal), or set CLAIMS_URL, COLLECTIONS_URL, LAND_URL.`,
    )
}

async function main(): Promise<number> {
  const urls: ServiceUrls = {
    claims: process.env.CLAIMS_URL ?? LOCAL_SERVICE_URLS.claims,
    collections: process.env.COLLECTIONS_URL ?? LOCAL_SERVICE_URLS.collections,
    land: process.env.LAND_URL ?? LOCAL_SERVICE_URLS.land,
  }
  const started = 'start the services with `pnpm start`, which generates it'
  try {
    await ready(urls)
    // Where `pnpm start` keeps them: DATA_DIR/<service>, or .data/<service>.
    const dataDir = (service: string) => serviceDataDir(service, process.env.DATA_DIR, root)
    const adminToken = kept('CLAIMS_ADMIN_TOKEN', join(dataDir('claims'), 'admin.token'), started)
    const committeeKey = kept('COMMITTEE_PRIVATE_KEY', join(dataDir('collections'), 'committee.key'), started)
    // The collections service's own defaults for its network and registry (the cheque's EIP-712 domain).
    const { DATABASE_URL: _ignored, ...env } = process.env
    const collections = loadConfig(env)
    const { steps } = await runDemo({
      urls,
      adminToken,
      committeeKey,
      network: collections.CHAIN_NETWORK,
      registry: {
        name: collections.THIRD_PARTY_REGISTRY_NAME,
        address: collections.THIRD_PARTY_REGISTRY_ADDRESS,
        chainId: collections.THIRD_PARTY_REGISTRY_CHAIN_ID,
      },
      print: (line) => console.log(line),
    })
    console.log(`\nDemo complete: ${steps.length} steps answered as documented.`)
    return 0
  } catch (error) {
    if (error instanceof Unprepared) {
      console.error(`\npnpm demo: ${error.message}`)
      return 1
    }
    const step = (error as { step?: string }).step
    console.error(`\n  ✗ ${step ?? 'demo'}`)
    if (error instanceof GenesisApiError) {
      console.error(`    ${error.request} → ${error.status} ${error.code}: ${error.message}`)
      if (error.data) console.error(`    data: ${JSON.stringify(error.data)}`)
    } else console.error(`    ${error instanceof Error ? error.message : String(error)}`)
    console.error('\nDemo failed: that step did not answer as documented.')
    return 1
  }
}

process.exitCode = await main()
