import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { IMPORT_KINDS, type ImportKind } from '@genesis/wire/land'
import { elementLines, lineAt } from './json-lines.js'

/** One record read from a file, before validation. */
export interface RawRow {
  file: string
  line: number
  /** undefined when neither the row (`kind`) nor the file name says what it is. */
  kind: ImportKind | undefined
  value: unknown
}

export interface ImportProblem {
  file: string
  line: number
  message: string
}

const EXTENSIONS = new Set(['.json', '.ndjson', '.jsonl'])

/** A kind from `parcels`, `parcel`, `Parcels`…; undefined for anything else. */
export function kindFrom(name: unknown): ImportKind | undefined {
  if (typeof name !== 'string') return undefined
  const lower = name.toLowerCase()
  return IMPORT_KINDS.find((kind) => kind === lower || kind === `${lower}s`)
}

/** `parcels.ndjson`, `parcels-2024.json`, `01_estates.json` → the kind in the file name. */
export function kindFromFileName(file: string): ImportKind | undefined {
  const stem = basename(file, extname(file)).toLowerCase()
  return IMPORT_KINDS.find((kind) =>
    stem.split(/[^a-z]+/).some((word) => kind === word || kind === `${word}s`),
  )
}

/** The files to import: the file itself, or the .json/.ndjson/.jsonl files of a directory, by name. */
export function listFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path)
    .filter((name) => EXTENSIONS.has(extname(name).toLowerCase()))
    .sort()
    .map((name) => join(path, name))
}

/** A row's own `kind` field wins over the file name; it is removed from the value. */
function rowOf(file: string, line: number, value: unknown, fallback: ImportKind | undefined): RawRow {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'kind' in value) {
    const { kind, ...rest } = value as Record<string, unknown>
    return { file, line, kind: kindFrom(kind), value: rest }
  }
  return { file, line, kind: fallback, value }
}

function syntaxLine(text: string, error: unknown): number {
  const message = error instanceof Error ? error.message : ''
  const lineMatch = /line (\d+)/.exec(message)
  if (lineMatch) return Number(lineMatch[1])
  const position = /position (\d+)/.exec(message)
  return position ? lineAt(text, Number(position[1])) : 1
}

export function readFile(file: string, problems: ImportProblem[]): RawRow[] {
  const text = readFileSync(file, 'utf8')
  const fromName = kindFromFileName(file)
  const extension = extname(file).toLowerCase()
  if (extension === '.ndjson' || extension === '.jsonl') {
    const rows: RawRow[] = []
    text.split('\n').forEach((content, index) => {
      if (content.trim() === '') return
      try {
        rows.push(rowOf(file, index + 1, JSON.parse(content), fromName))
      } catch (error) {
        problems.push({ file, line: index + 1, message: `not valid JSON: ${(error as Error).message}` })
      }
    })
    return rows
  }
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    problems.push({
      file,
      line: syntaxLine(text, error),
      message: `not valid JSON: ${(error as Error).message}`,
    })
    return []
  }
  const lines = elementLines(text)
  if (Array.isArray(document))
    return document.map((value, i) => rowOf(file, lines.root[i] ?? 1, value, fromName))
  if (document !== null && typeof document === 'object') {
    const rows: RawRow[] = []
    for (const [key, values] of Object.entries(document)) {
      const kind = kindFrom(key)
      if (!kind || !Array.isArray(values)) {
        problems.push({
          file,
          line: 1,
          message: `unknown key "${key}": expected arrays under ${IMPORT_KINDS.join(', ')}`,
        })
        continue
      }
      const at = lines.byKey.get(key) ?? []
      values.forEach((value, i) => {
        rows.push(rowOf(file, at[i] ?? 1, value, kind))
      })
    }
    return rows
  }
  problems.push({ file, line: 1, message: 'expected an array of records or an object of arrays by kind' })
  return []
}
