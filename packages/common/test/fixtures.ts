import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
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
