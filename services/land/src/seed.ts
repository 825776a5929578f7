import { pathToFileURL } from 'node:url'
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

/** `pnpm --filter @genesis/land run seed`: against DATABASE_URL, or the embedded default under DATA_DIR. */
async function main() {
  const db = await openScriptDatabase()
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
