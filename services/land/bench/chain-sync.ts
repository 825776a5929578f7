/**
 * `pnpm --filter @genesis/land bench:chain` (from services/land): the initial sync of Genesis City from a
 * local chain. Starts anvil with the land contracts and the demo set written on chain (owners in batches,
 * names, estates, open listings: bench setup, not timed), then times one indexer from the deployment block to
 * the head on a fresh PostgreSQL database with the layout loaded: events per second and total seconds.
 *
 * Writing the whole city takes minutes, so the chain is kept: after writing, anvil's state (blocks, logs,
 * contracts) goes to .bench-cache/ with a small JSON of the deployment beside it, under a key made of the
 * demo set, the writer's code, the contracts' bytecode and anvil's version; the next run with the same key
 * starts anvil from that state and writes nothing.
 * BENCH_PARCELS=N writes only the first N parcels (a quick check; the full set is 90,601).
 * BENCH_CACHE=0 neither reads nor writes the cache (to time the writing).
 * BENCH_RANGE=N: the indexer's widest eth_getLogs range (default 8 blocks, see below).
 */

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createLogger, migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import {
  anvilBinary,
  artifact,
  type ContractName,
  deployLand,
  devPrivateKey,
  type LandDeployment,
  startAnvil,
} from '@genesis/contracts'
import { Wallet } from 'ethers'
import { slice } from '../scripts/chain-demo/slice.js'
import { type DemoSummary, writeDemoOnChain } from '../scripts/chain-demo/writer.js'
import { ChainIndexer } from '../src/indexer/indexer.js'
import { seedLayout } from '../src/indexer/layout.js'
import { Rpc } from '../src/indexer/rpc.js'
import { migrationsDir, packageRoot } from '../src/paths.js'
import { generateGenesisCity, readSourceData } from '../src/seed/genesis-city.js'

/** What is kept beside the chain's state: where the contracts are and what was written. */
interface CachedChain {
  key: string
  deployment: LandDeployment
  head: number
  written: DemoSummary
  writeSeconds: number
  writtenAt: string
}

const limit = process.env.BENCH_PARCELS ? Number(process.env.BENCH_PARCELS) : undefined
const useCache = process.env.BENCH_CACHE !== '0'
// Providers answer at most ~10,000 logs a call (more is refused, and the indexer halves its range); anvil
// has no such cap, and the whole city in one call (~110,000 logs) outlasts the indexer's 10 s timeout. A
// full block of parcel mints holds ~1,170 logs: 8 blocks a call stays under a provider's cap.
const range = Number(process.env.BENCH_RANGE ?? 8)
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')

let set = generateGenesisCity(readSourceData())
if (limit !== undefined) set = slice(set, limit)
const landContracts: ContractName[] = ['LANDRegistry', 'EstateRegistry', 'Marketplace', 'MANAToken']
const writer = fileURLToPath(new URL('../scripts/chain-demo/writer.ts', import.meta.url))
const key = createHash('sha256')
  .update(JSON.stringify(set))
  .update(readFileSync(writer))
  .update(landContracts.map((n) => artifact(n).bytecode).join())
  .update(spawnSync(anvilBinary(), ['--version'], { encoding: 'utf8' }).stdout)
  .digest('hex')
  .slice(0, 16)
const cacheDir = join(packageRoot, '.bench-cache')
const name = `chain-${limit ?? 'city'}-${key}`
const statePath = join(cacheDir, `${name}.state.json.gz`)
const metaPath = join(cacheDir, `${name}.json`)
const cached: CachedChain | null =
  useCache && existsSync(statePath) && existsSync(metaPath)
    ? (JSON.parse(readFileSync(metaPath, 'utf8')) as CachedChain)
    : null

const anvil = await startAnvil(cached ? { loadState: statePath } : {})
const rpc = new Rpc(anvil.url, 600_000)
const db = await createTestDatabase()
try {
  let d: LandDeployment
  let head: number
  if (cached) {
    d = cached.deployment
    head = Number(await rpc.blockNumber())
    const code = await rpc.call<string>('eth_getCode', [d.landRegistry, 'latest'])
    if (head !== cached.head || code === '0x')
      throw new Error(
        `the cached chain ${statePath} did not load (head ${head}, expected ${cached.head}): delete it`,
      )
    console.log(
      `chain from the cache, nothing written: ${statePath}\n  written ${cached.writtenAt} in ` +
        `${cached.writeSeconds.toFixed(1)} s:`,
      cached.written,
    )
  } else {
    const provider = anvil.provider()
    d = await deployLand(anvil.devWallet(0, provider))
    provider.destroy()
    const setupStarted = Date.now()
    console.log(`writing the demo set on chain (load average ${load()})`)
    let shown = ''
    const written = await writeDemoOnChain(anvil.url, new Wallet(devPrivateKey(0)).address, d, set, {
      progress: (step, done, total) => {
        // a line per step and tenth
        const line = `  ${step} ${Math.floor((10 * done) / total) * 10}%`
        if (line !== shown) console.log(`${line} (${((Date.now() - setupStarted) / 1000).toFixed(1)} s)`)
        shown = line
      },
    })
    const writeSeconds = (Date.now() - setupStarted) / 1000
    head = Number(await rpc.blockNumber())
    console.log(`on chain in ${writeSeconds.toFixed(1)} s (setup; load average ${load()}):`, written)
    if (useCache) {
      const dumped = await rpc.call<string>('anvil_dumpState', [])
      mkdirSync(cacheDir, { recursive: true })
      // the state first, under a temporary name: a run stopped halfway leaves no half-written cache
      writeFileSync(`${statePath}.tmp`, Buffer.from(dumped.slice(2), 'hex'))
      renameSync(`${statePath}.tmp`, statePath)
      const meta: CachedChain = {
        key,
        deployment: d,
        head,
        written,
        writeSeconds,
        writtenAt: new Date().toISOString(),
      }
      writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`)
      console.log(`chain cached: ${statePath}`)
    }
  }

  await migrate(db.sql, migrationsDir)
  await seedLayout(db.sql)
  let events = 0
  const loadBefore = load()
  const started = Date.now()
  const done = new Promise<void>((resolve) => {
    const indexer = new ChainIndexer({
      sql: db.sql,
      rpcUrl: anvil.url,
      contracts: { land: d.landRegistry, estates: d.estateRegistry, marketplace: d.marketplace },
      startBlock: BigInt(d.startBlock),
      confirmations: 12,
      pollMs: 50,
      maxBlockRange: range,
      logger: createLogger('land', { LOG_LEVEL: 'warn' }),
      onBatch: (batch) => {
        events += batch.logs
        if (batch.to >= head) {
          void indexer.stop().then(() => resolve())
        }
      },
    })
    indexer.start()
  })
  await done
  const seconds = (Date.now() - started) / 1000
  const [row] = await db.sql<
    Array<{ n: string }>
  >`select count(*)::text as n from parcels where owner is not null`
  console.log(
    `initial sync: ${events} events (${head - d.startBlock} blocks, up to ${range} a call) in ${seconds.toFixed(1)} s = ` +
      `${Math.round(events / seconds)} events/s; ${row?.n} parcels owned in the tables ` +
      `(load average ${loadBefore} before, ${load()} after)`,
  )
} finally {
  await db.drop()
  await anvil.close()
}
