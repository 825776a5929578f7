import type { Sql } from '@genesis/common'
import { existingIds } from '../db/assets.js'
import { type ImportProblem, listFiles, type RawRow, readFile } from './read.js'
import { type ImportPlan, planImport } from './validate.js'
import { writeImport } from './write.js'

export type { ImportProblem } from './read.js'

export interface ImportResult {
  /** Empty when the import was written. */
  problems: ImportProblem[]
  counts: { [K in keyof ImportPlan]: number }
  written: boolean
}

/**
 * Reads, validates and writes JSON / NDJSON land records. Every problem is collected (with its file and
 * line) before anything is written; with any problem nothing is written at all.
 */
export async function importPaths(sql: Sql, paths: string[]): Promise<ImportResult> {
  const problems: ImportProblem[] = []
  const rows: RawRow[] = []
  for (const path of paths) {
    let files: string[]
    try {
      files = listFiles(path)
    } catch (error) {
      problems.push({ file: path, line: 0, message: (error as Error).message })
      continue
    }
    if (files.length === 0)
      problems.push({ file: path, line: 0, message: 'no .json, .ndjson or .jsonl file here' })
    for (const file of files) rows.push(...readFile(file, problems))
  }
  const plan = planImport(rows, await existingIds(sql), problems)
  const counts = {
    districts: plan.districts.length,
    estates: plan.estates.length,
    parcels: plan.parcels.length,
    publications: plan.publications.length,
    contributions: plan.contributions.length,
  }
  if (problems.length > 0) return { problems, counts, written: false }
  await writeImport(sql, plan)
  return { problems, counts, written: true }
}
