import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { openScriptDatabase } from './data-script.js'
import { importPaths } from './importer/index.js'

export { importPaths } from './importer/index.js'

/**
 * `pnpm --filter @genesis/land run import <file|dir>...`: JSON (an array, or `{ "parcels": [...], ... }`)
 * or NDJSON of districts, estates, parcels, publications and contributions. Exit 0 when written, 1 when
 * any row is invalid (each reported as file:line, nothing written), 2 on a usage error.
 */
async function main(args: string[]) {
  if (args.length === 0 || args.includes('--help')) {
    console.error('usage: pnpm --filter @genesis/land run import <file|dir>...')
    process.exit(2)
  }
  const db = await openScriptDatabase()
  let code = 0
  try {
    // `pnpm --filter` runs the script in the package directory; paths are meant from where pnpm was run.
    const from = process.env.INIT_CWD ?? process.cwd()
    const result = await importPaths(
      db.sql,
      args.map((path) => resolve(from, path)),
    )
    for (const p of result.problems) console.error(`${p.file}:${p.line}: ${p.message}`)
    const counts = Object.entries(result.counts)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ')
    if (result.written) console.log(`Imported ${counts}`)
    else {
      console.error(`Nothing imported: ${result.problems.length} problem(s) (valid rows: ${counts})`)
      code = 1
    }
  } finally {
    await db.close()
  }
  process.exit(code)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  })
}
