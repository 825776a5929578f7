// Adds up the vitest JSON reports of every package and prints one closing line: "N passed, N failed".
// The report file name is the first argument (default .test-results.json; `pnpm test:chain` writes others).
// Each failed test is named again here, with its first message line, because a CI log is often read from its end.
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
const failures = []
for (const dir of packages) {
  const file = join(dir, reportName)
  if (!existsSync(file)) continue
  const report = JSON.parse(readFileSync(file, 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + (report.numTodoTests ?? 0)
  for (const suite of report.testResults ?? []) {
    const where = suite.name.slice(root.length)
    const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed')
    for (const t of failedTests)
      failures.push(`${where} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`)
    // A file that fails before its tests run (an import error, a hook) has no failed test of its own.
    if (suite.status === 'failed' && failedTests.length === 0)
      failures.push(`${where}: ${firstLine(suite.message)}`)
  }
}
for (const line of failures) console.log(`FAILED ${line}`)
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 || failures.length > 0 || passed === 0 ? 1 : 0)

function firstLine(text) {
  return String(text ?? '')
    .split('\n')[0]
    .slice(0, 300)
}
