// First of all imports: keeps V8's caches for Node's tick objects across full collections (see the module).
import '@genesis/common/keep-tick-shape'
import { setFlagsFromString } from 'node:v8'
import { openService, runService } from '@genesis/common'
import { buildApp, SERVICE } from './app.js'
import { type Config, loadConfig } from './config.js'
import { createGridIndex } from './context.js'
import { isLandEmpty } from './db/assets.js'
import { compactHeap } from './heap.js'
import { indexerFromConfig } from './indexer/from-config.js'
import { seedLayout } from './indexer/layout.js'
import { embeddedDir, migrationsDir } from './paths.js'
import { seedInChildProcess } from './seed.js'

/**
 * On the embedded default, how far V8 lets its old generation grow past what the last full collection
 * left alive before it collects again: 10 %. V8 picks up to 4× by itself when the program allocates fast,
 * and thousands of cached answers a second (each request's objects, promoted while other requests are in
 * flight) are allocating fast: the heap then grew from 120 to 320 MiB of mostly garbage before a full
 * collection, the resident memory with it, beside PGlite's own (BENCHMARKS.md, "Memory on the embedded
 * default"). The CPU per request did not grow (interleaved rounds against V8's own choice: 0.9–1.1 of it).
 * On PostgreSQL the process has room (177 MiB after the same runs) and V8 keeps its own choice: the
 * flood test (test/flood.test.ts, 60 large answers at once) could not be settled on this machine's load
 * with more frequent full collections (one /health/live took 1.2 s, though runs without them also missed
 * bounds there).
 */
const EMBEDDED_OLD_GENERATION_GROWTH_PERCENT = 10

const mib = (bytes: number) => Math.round(bytes / 2 ** 20)

const shouldSeed = (config: Config, embedded: boolean) =>
  config.LAND_AUTO_SEED === 'always' || (config.LAND_AUTO_SEED === 'embedded' && embedded)

// Listen at once (readiness stays 503), then seed an empty database when configured and build the index;
// from then on the index follows the database (LISTEN, or the indexer's own word on the embedded default,
// where NOTIFY does not cross connections).
const { config, logger, db } = await openService({
  service: SERVICE.name,
  loadConfig,
  migrationsDir,
  embeddedDir,
})
// Read at every collection, so it applies from here on.
if (db.embedded) setFlagsFromString(`--heap-growing-percent=${EMBEDDED_OLD_GENERATION_GROWTH_PERCENT}`)
// Once the first index is built, before the service says it is ready (so no request waits on it), the heap
// is compacted: the build leaves the old generation's pages sparse, which every young-generation collection
// would pay for (heap.ts).
const grid = createGridIndex(db.sql, config, logger, async () => {
  const { collections, longestMs, oldSpaceBeforeBytes, oldSpaceAfterBytes } = await compactHeap()
  logger.info(
    {
      collections,
      longest_ms: Math.round(longestMs),
      old_space_before_mib: mib(oldSpaceBeforeBytes),
      old_space_after_mib: mib(oldSpaceAfterBytes),
    },
    'land: heap compacted after the first index',
  )
})
const app = await buildApp({ sql: db.sql, config, logger, context: { grid } })
const close = async () => {
  await indexer?.stop()
  await grid.close()
  await db.close()
}
// With LAND_RPC_URL, owners, estates and listings follow the chain (one writer across replicas). A database
// holding another chain's data, or data no chain brought, is refused: the process says why and exits 1.
const indexer = indexerFromConfig(db.sql, config, logger, {
  metrics: app.metrics,
  ...(db.embedded ? { onChange: (payload) => grid.noticed(payload) } : {}),
  onRefused: (reason) => {
    logger.error(reason)
    void app
      .close()
      .then(close)
      .finally(() => process.exit(1))
  },
})

await runService({ app, config, onClose: close })
if (config.LAND_PUBLIC_URL && !process.env.LAND_PUBLIC_URL) {
  logger.info(`land: token metadata links to ${config.LAND_PUBLIC_URL} (LAND_PUBLIC_URL not set)`)
}
if (!db.embedded) await grid.listen()
if (indexer && config.LAND_AUTO_SEED !== 'never' && (await isLandEmpty(db.sql))) {
  // following a chain: only what is not on chain (districts, contributions); owners come from the chain
  logger.info('land: empty database, loading the Genesis City layout to follow the chain')
  await seedLayout(db.sql)
} else if (!indexer && shouldSeed(config, db.embedded) && (await isLandEmpty(db.sql))) {
  logger.info('land: empty database, loading the Genesis City demo set')
  const started = Date.now()
  // from a process of its own: its heap's growth is not this process's for good
  const summary = await seedInChildProcess(db.url)
  logger.info({ ...summary, ms: Date.now() - started }, 'land: Genesis City seeded')
}
await grid.start()
indexer?.start()
