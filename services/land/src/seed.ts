import { execFile } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import type { Sql } from '@genesis/common'
import cliProgress from 'cli-progress'
import { openScriptDatabase } from './data-script.js'
import { generateGenesisCity, readSourceData } from './seed/genesis-city.js'
import { type Progress, writeSeedSet } from './seed/write.js'

export interface SeedOptions {
  progress?: Progress
}

export interface SeedSummary {
  districts: number
  parcels: number
  estates: number
  publications: number
  contributions: number
}

/** Loads the Genesis City demo set (README "The demo set"), replacing what the land tables hold. Idempotent. */
export async function seed(sql: Sql, options: SeedOptions = {}): Promise<SeedSummary> {
  const set = generateGenesisCity(readSourceData())
  await writeSeedSet(sql, set, options.progress)
  return {
    districts: set.districts.length,
    parcels: set.parcels.length,
    estates: set.estates.length,
    publications: set.publications.length,
    contributions: set.contributions.length,
  }
}

/**
 * Loads the demo set from a process of its own (this file's command) into the database at `databaseUrl`:
 * generating and writing the set grows the JavaScript heap by a few hundred megabytes while it runs,
 * and a service's process keeps a grown heap for good, while a child's memory is the system's again when
 * it exits. The service's first start on the embedded database seeds this way.
 */
export async function seedInChildProcess(databaseUrl: string): Promise<SeedSummary & { seedPid: number }> {
  // the same loader (tsx in development) and flags, but no debugger port of the parent's
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--inspect'))
  const child = promisify(execFile)(
    process.execPath,
    [...execArgv, fileURLToPath(import.meta.url), '--json'],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      timeout: 300_000,
      maxBuffer: 1024 * 1024,
    },
  )
  const pid = child.child.pid ?? 0
  const { stdout } = await child
  const last = stdout.trim().split('\n').pop() ?? ''
  return { ...(JSON.parse(last) as SeedSummary), seedPid: pid }
}

/**
 * `pnpm --filter @genesis/land run seed`: against DATABASE_URL, or the embedded default under DATA_DIR.
 * `--json`: no progress bar, the summary as one line of JSON (seedInChildProcess reads it).
 */
async function main() {
  const db = await openScriptDatabase()
  if (process.argv.includes('--json')) {
    try {
      console.log(JSON.stringify(await seed(db.sql)))
    } finally {
      await db.close()
    }
    return
  }
  const bar = new cliProgress.SingleBar(
    { format: 'seeding {bar} {percentage}% | {value}/{total} rows | {step}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  )
  const started = Date.now()
  try {
    let begun = false
    const summary = await seed(db.sql, {
      progress: (done, total, step) => {
        if (!begun) bar.start(total, 0, { step })
        begun = true
        bar.update(done, { step })
      },
    })
    bar.stop()
    console.log(
      `Seeded Genesis City in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary.parcels} parcels, ` +
        `${summary.districts} districts, ${summary.estates} estates, ${summary.publications} publications, ` +
        `${summary.contributions} contributions`,
    )
  } finally {
    bar.stop()
    await db.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  })
}
