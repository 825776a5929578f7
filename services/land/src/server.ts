import {
  type App,
  databaseTimeoutsFromConfig,
  migrate,
  openDatabase,
  runService,
  type Sql,
} from '@genesis/common'
import { buildApp } from './app.js'
import { type Config, loadConfig } from './config.js'
import { GridIndex } from './grid/grid-index.js'
import { migrationsDir } from './paths.js'
import { seed } from './seed.js'

async function isEmpty(sql: Sql): Promise<boolean> {
  const [row] = await sql<Array<{ empty: boolean }>>`select not exists (select 1 from districts) as empty`
  return row?.empty ?? true
}

const shouldSeed = (config: Config, embedded: boolean) =>
  config.LAND_AUTO_SEED === 'always' || (config.LAND_AUTO_SEED === 'embedded' && embedded)

/**
 * Start: migrate, listen at once (readiness stays 503), then seed an empty database when configured and
 * build the index; from then on the index follows the database (LISTEN, or in-process on the embedded
 * default where NOTIFY does not cross connections, DESIGN §2).
 */
async function main() {
  const config = loadConfig()
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    timeouts: databaseTimeoutsFromConfig(config),
    dataDir: config.DATA_DIR,
    service: 'land',
    logger: { info: (...args: unknown[]) => console.log(String(args.at(-1))), warn: console.warn },
  })
  await migrate(db.sql, migrationsDir)
  // The index logs through the app's logger, which exists once the app does.
  const log = { app: undefined as App | undefined }
  const grid = new GridIndex(db.sql, {
    debounceMs: config.LAND_REFRESH_DEBOUNCE_MS,
    prewarm: config.LAND_PREWARM,
    logger: {
      info: (obj, msg) => log.app?.log.info(obj, msg),
      error: (obj, msg) => log.app?.log.error(obj, msg),
    },
  })
  const app = await buildApp({ sql: db.sql, grid, config })
  log.app = app
  await runService({
    app,
    port: config.PORT,
    host: config.HOST,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    onClose: async () => {
      await grid.close()
      await db.close()
    },
  })
  if (!db.embedded) await grid.listen()
  if (shouldSeed(config, db.embedded) && (await isEmpty(db.sql))) {
    app.log.info('land: empty database, loading the Genesis City demo set')
    const started = Date.now()
    const summary = await seed(db.sql)
    app.log.info({ ...summary, ms: Date.now() - started }, 'land: Genesis City seeded')
  }
  await grid.start()
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
