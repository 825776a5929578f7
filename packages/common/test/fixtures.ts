import { spawnSync } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A migrations folder with the given SQL files, numbered in order. */
export function migrationsOf(...files: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'genesis-migrations-'))
  files.forEach((sql, i) => {
    const folder = join(dir, `${String(i + 1).padStart(5, '0')}_step`)
    mkdirSync(folder)
    writeFileSync(join(folder, 'index.sql'), sql)
  })
  return dir
}

export const emptyMigrations = () => migrationsOf('select 1;')

/**
 * Runs `node <args>` to its end and returns its exit status, stderr and stdout. V8 prints its traces from C++
 * to the process's stdout: through a pipe part of it was sometimes lost under vitest, so stdout goes to a file.
 */
export function runNode(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; stderr: string; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), 'node-stdout-'))
  const printed = join(dir, 'stdout')
  const out = openSync(printed, 'w')
  const child = spawnSync(process.execPath, args, {
    env,
    stdio: ['ignore', out, 'pipe'],
    encoding: 'utf8',
    timeout: 120_000,
  })
  closeSync(out)
  const stdout = readFileSync(printed, 'utf8')
  rmSync(dir, { recursive: true })
  return { status: child.status, stderr: child.stderr, stdout }
}
