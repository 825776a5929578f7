// Adds up the vitest JSON reports of every package and prints one closing line: "N passed, N failed".
// The report file name is the first argument (default .test-results.json; `pnpm test:chain` writes others).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const reportName = process.argv[2] ?? '.test-results.json'
const root = new URL('..', import.meta.url).pathname
const packages = ['packages', 'services']
  .flatMap((dir) =>
    existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((name) => join(root, dir, name)) : [],
  )
  .concat(join(root, 'infra'))

let passed = 0
let failed = 0
let skipped = 0
for (const dir of packages) {
  const file = join(dir, reportName)
  if (!existsSync(file)) continue
  const report = JSON.parse(readFileSync(file, 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + (report.numTodoTests ?? 0)
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
