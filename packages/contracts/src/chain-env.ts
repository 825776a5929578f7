import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { findUpSync } from 'find-up-simple'

/**
 * The file `pnpm chain` writes the services' environment to, and `pnpm start` / `pnpm demo` read:
 * `chain.env` in the directory `pnpm start` keeps its data in (DATA_DIR, or `.data` at the repository
 * root). A relative DATA_DIR is taken from where the command was typed (pnpm's INIT_CWD), as `pnpm start`
 * takes it.
 */
export function chainEnvFile(env: NodeJS.ProcessEnv = process.env, from = process.cwd()): string {
  const typedIn = env.INIT_CWD ?? from
  const dataDir = env.DATA_DIR ? resolve(typedIn, env.DATA_DIR) : join(repositoryRoot(from), '.data')
  return join(dataDir, 'chain.env')
}

/** The directory holding pnpm-workspace.yaml above `from`, or `from` itself outside the repository. */
function repositoryRoot(from: string): string {
  const workspace = findUpSync('pnpm-workspace.yaml', { cwd: from })
  return workspace ? dirname(workspace) : resolve(from)
}

/** Single quotes around anything a shell would split or expand (the values never hold a quote). */
function quoted(value: string): string {
  if (/['\n]/.test(value)) throw new Error(`cannot write ${JSON.stringify(value)} to an env file`)
  return /^[\w@%+=:,./-]*$/.test(value) ? value : `'${value}'`
}

/** `export KEY=value` lines: a shell sources them, Node's `util.parseEnv` reads them. */
export const exportLines = (vars: Record<string, string>): string[] =>
  Object.entries(vars).map(([key, value]) => `export ${key}=${quoted(value)}`)

/** Writes the file (with a header saying who wrote it) and returns what it wrote. */
export function writeChainEnv(file: string, vars: Record<string, string>, header: string[]): string {
  const text = `${[...header.map((line) => `# ${line}`), ...exportLines(vars)].join('\n')}\n`
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return text
}

/** Removes the file if it still holds what `written` was (another `pnpm chain` may have replaced it). */
export function removeChainEnv(file: string, written: string): void {
  try {
    if (readFileSync(file, 'utf8') === written) rmSync(file)
  } catch {
    // already gone
  }
}

/**
 * The variables of a file `writeChainEnv` wrote (`export KEY=value` lines, values bare or in single
 * quotes, `#` comments), or null when there is none.
 */
export function readChainEnv(file: string): Record<string, string> | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return null
  }
  const vars: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|(\S*))\s*$/.exec(line)
    if (match) vars[match[1]!] = match[2] ?? match[3] ?? ''
  }
  return vars
}
