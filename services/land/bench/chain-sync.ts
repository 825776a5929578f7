/**
 * `pnpm --filter @genesis/land bench:chain` (from services/land): the initial sync of Genesis City from a
 * local chain. Starts anvil, deploys the land contracts, writes the demo set on chain (owners in batches,
 * names, estates, open listings: bench setup, not timed), then times one indexer from LAND_START_BLOCK to the
 * head on a fresh PostgreSQL database with the layout loaded: events per second and total seconds.
 * BENCH_PARCELS=N writes only the first N parcels (a quick check; the full set is 90,601).
 */
import { createLogger, migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import { deployLand, startAnvil } from '@genesis/contracts'
import { writeDemoOnChain } from '../src/indexer/demo.js'
import { slice } from '../src/indexer/demo-slice.js'
import { ChainIndexer } from '../src/indexer/indexer.js'
import { seedLayout } from '../src/indexer/layout.js'
import { migrationsDir } from '../src/paths.js'
import { generateGenesisCity, readSourceData } from '../src/seed/genesis-city.js'

const limit = process.env.BENCH_PARCELS ? Number(process.env.BENCH_PARCELS) : undefined
const anvil = await startAnvil()
const provider = anvil.provider()
const db = await createTestDatabase()
try {
  const d = await deployLand(anvil.devWallet(0, provider))
  let set = generateGenesisCity(readSourceData())
  if (limit !== undefined) set = slice(set, limit)
  const setupStarted = Date.now()
  const written = await writeDemoOnChain(provider, anvil.devWallet(0, provider), d, set)
  const head = BigInt(await provider.getBlockNumber())
  console.log(`on chain in ${((Date.now() - setupStarted) / 1000).toFixed(1)} s (setup):`, written)

  await migrate(db.sql, migrationsDir)
  await seedLayout(db.sql)
  let events = 0
  const started = Date.now()
  const done = new Promise<void>((resolve) => {
    const indexer = new ChainIndexer({
      sql: db.sql,
      rpcUrl: anvil.url,
      contracts: { land: d.landRegistry, estates: d.estateRegistry, marketplace: d.marketplace },
      startBlock: BigInt(d.startBlock),
      confirmations: 12,
      pollMs: 50,
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
    `initial sync: ${events} events (${Number(head) - d.startBlock} blocks) in ${seconds.toFixed(1)} s = ` +
      `${Math.round(events / seconds)} events/s; ${row?.n} parcels owned in the tables`,
  )
} finally {
  provider.destroy()
  await db.drop()
  await anvil.close()
}
