// A Stryker reporter that writes every tested mutant as it finishes, one JSON line each, to
// reports/mutation/live.jsonl, and prints the survivors as they appear. A full run takes long on a small
// machine: when one is cut short, the mutants tested so far (and the survivors among them) are still there.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

const FILE = 'reports/mutation/live.jsonl'

class LiveReporter {
  static inject = []

  constructor() {
    mkdirSync(dirname(FILE), { recursive: true })
    writeFileSync(FILE, '')
  }

  onMutantTested(result) {
    const { id, fileName, location, mutatorName, replacement, status, statusReason } = result
    const line = location.start.line
    // Stryker's columns count from 0; editors count from 1.
    const column = location.start.column + 1
    appendFileSync(
      FILE,
      `${JSON.stringify({ id, fileName, line, column, mutatorName, replacement, status, statusReason })}\n`,
    )
    if (status === 'Survived' || status === 'NoCoverage') {
      console.log(`${status}: ${fileName}:${line}:${column} ${mutatorName} → ${JSON.stringify(replacement)}`)
    }
  }
}

// The shape @stryker-mutator/api's declareClassPlugin(PluginKind.Reporter, …) returns, without importing the
// api package (pnpm keeps it private to @stryker-mutator/core).
export const strykerPlugins = [{ kind: 'Reporter', name: 'live', injectableClass: LiveReporter }]
