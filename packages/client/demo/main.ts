/**
 * `pnpm demo`: every flow of the three services that `pnpm start` runs, step by step, with @genesis/client.
 * `pnpm demo --chain`: a claim settled on the local chain `pnpm chain` runs (the services following it):
 * rewards granted on its dispenser, claimed, the voucher sent from a funded development wallet, the claim
 * settled by the service from the chain.
 * Exits 0 when every step answered as documented, 1 (naming the step and the answer) otherwise.
 *
 *   CLAIMS_URL, COLLECTIONS_URL, LAND_URL   base URLs (default http://localhost:3001, 3002, 3003)
 *   CLAIMS_ADMIN_TOKEN                      the operator's token (default: kept in DATA_DIR/claims or .data/claims)
 *   COMMITTEE_PRIVATE_KEY                   a committee member's key (default: kept in DATA_DIR/collections or .data/collections)
 *   CHAIN_NETWORK, THIRD_PARTY_REGISTRY_*   as given to the collections service (same defaults)
 *   --chain: REWARDS_DISPENSER_ADDRESS, RPC_URL_80002 (from the chain env file `pnpm chain` writes),
 *            DEMO_WALLET_KEY (default: anvil's development account 3)
 * Like `pnpm start`, it reads the chain env file while `pnpm chain` runs; exported variables win.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serviceDataDir } from '@genesis/common'
import { chainEnvFile, readChainEnv } from '@genesis/contracts/chain-env'
import { DEFAULT_CHAIN_NETWORK, DEFAULT_REGISTRY } from '@genesis/wire/collections'
import { GenesisApiError, LOCAL_SERVICE_URLS, type RewardGrant, type ServiceUrls } from '../src/index.js'
import { type ChainDemoOptions, runChainDemo, runDemo } from './flows.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
/** Anvil's development account 3: funded on a fresh node, and no other role in `pnpm chain`'s set-up. */
const ANVIL_ACCOUNT_3 = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'
const LOCAL_CHAIN_ID = '80002'

class Unprepared extends Error {}

const chainFile = chainEnvFile(process.env, root)
const env: NodeJS.ProcessEnv = { ...(readChainEnv(chainFile) ?? {}), ...process.env }

function kept(variable: string, file: string, hint: string): string {
  const fromEnv = env[variable]
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

/** The local chain `--chain` walks on: from the chain env file `pnpm chain` wrote, or the environment. */
function localChain(): ChainDemoOptions {
  const chainId = LOCAL_CHAIN_ID
  const rpcUrl = env[`RPC_URL_${chainId}`]
  const dispenser = env.REWARDS_DISPENSER_ADDRESS
  if (!rpcUrl || !dispenser)
    throw new Unprepared(
      `no local chain: ${chainFile} does not exist and RPC_URL_${chainId}, REWARDS_DISPENSER_ADDRESS are not set. ` +
        'Start one with `pnpm chain` (in another terminal), then `pnpm start`.',
    )
  return {
    rpcUrl,
    // One of the chain ids claims accepts: the local chain's, a literal of RewardGrant's union.
    chainId: chainId as RewardGrant['chain_id'],
    dispenser: dispenser.toLowerCase(),
    userKey: env.DEMO_WALLET_KEY ?? ANVIL_ACCOUNT_3,
  }
}

async function main(): Promise<number> {
  const onChain = process.argv.slice(2).includes('--chain')
  const urls: ServiceUrls = {
    claims: env.CLAIMS_URL ?? LOCAL_SERVICE_URLS.claims,
    collections: env.COLLECTIONS_URL ?? LOCAL_SERVICE_URLS.collections,
    land: env.LAND_URL ?? LOCAL_SERVICE_URLS.land,
  }
  const started = 'start the services with `pnpm start`, which generates it'
  try {
    const chain = onChain ? localChain() : undefined
    await ready(urls)
    // Where `pnpm start` keeps them: DATA_DIR/<service>, or .data/<service>.
    const dataDir = (service: string) => serviceDataDir(service, env.DATA_DIR, root)
    const adminToken = kept('CLAIMS_ADMIN_TOKEN', join(dataDir('claims'), 'admin.token'), started)
    const print = (line: string) => console.log(line)
    if (chain) {
      const { steps } = await runChainDemo({ urls, adminToken, print }, chain)
      console.log(
        `\nDemo complete: ${steps.length} steps answered as documented; the claim settled on chain.`,
      )
      return 0
    }
    const committeeKey = kept('COMMITTEE_PRIVATE_KEY', join(dataDir('collections'), 'committee.key'), started)
    const { steps } = await runDemo({
      urls,
      adminToken,
      committeeKey,
      // What the collections service was given, else its defaults (the cheque's EIP-712 domain).
      network: env.CHAIN_NETWORK ?? DEFAULT_CHAIN_NETWORK,
      registry: {
        name: env.THIRD_PARTY_REGISTRY_NAME ?? DEFAULT_REGISTRY.name,
        address: env.THIRD_PARTY_REGISTRY_ADDRESS ?? DEFAULT_REGISTRY.address,
        chainId: Number(env.THIRD_PARTY_REGISTRY_CHAIN_ID ?? DEFAULT_REGISTRY.chainId),
      },
      print,
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
      if (error.code === 'not_deployed')
        console.error(
          '    (collections follows a chain here, so it publishes only collections deployed on it: this ' +
            'walkthrough is for the embedded default; on the local chain, `pnpm demo --chain`)',
        )
    } else console.error(`    ${error instanceof Error ? error.message : String(error)}`)
    console.error('\nDemo failed: that step did not answer as documented.')
    return 1
  }
}

process.exitCode = await main()
