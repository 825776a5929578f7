/*
 * Decentraland's LAND (and estate) data string, `version,name,description,ipns`, CSV-quoted: a field may be
 * wrapped in double quotes, `""` inside is a quote. Its one writer (the chain demo) and its one reader (the
 * indexer) live here, so that what one writes the other reads back.
 */

export interface LandData {
  version: number
  name: string
  description: string
  ipns: string
}

/** Longest name / description / ipns kept from a data string; longer ones make it malformed. */
const MAX_FIELD = 1000

/** The data string of version 0, each field quoted when it needs to be. */
export function writeLandData(data: Omit<LandData, 'version'>): string {
  const quote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s)
  return `0,${quote(data.name)},${quote(data.description)},${quote(data.ipns)}`
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The data a string carries, as Decentraland's own parser reads it (version 0 only). Null when the bytes are
 * not UTF-8 or the string is not that shape; an empty string is empty data.
 */
export function readLandData(bytes: Uint8Array): LandData | null {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return null
  }
  if (text === '') return { version: 0, name: '', description: '', ipns: '' }
  if (text.includes('\u0000')) return null // PostgreSQL text cannot hold it
  const fields = parseCsvLine(text)
  if (!fields || fields.length < 1 || fields.length > 4) return null
  if (fields[0] !== '0') return null
  const [, name = '', description = '', ipns = ''] = fields
  if (name.length > MAX_FIELD || description.length > MAX_FIELD || ipns.length > MAX_FIELD) return null
  return { version: 0, name, description, ipns }
}

/** One CSV record (RFC 4180 quoting, no newline outside quotes); null when malformed. */
function parseCsvLine(text: string): string[] | null {
  const fields: string[] = []
  let i = 0
  for (;;) {
    let field = ''
    if (text[i] === '"') {
      i++
      for (;;) {
        if (i >= text.length) return null // unterminated quote
        const c = text[i]!
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"'
            i += 2
            continue
          }
          i++
          break
        }
        field += c
        i++
      }
      if (i < text.length && text[i] !== ',') return null // text after a closing quote
    } else {
      const end = text.indexOf(',', i)
      field = end === -1 ? text.slice(i) : text.slice(i, end)
      if (field.includes('"') || /[\r\n]/.test(field)) return null
      i = end === -1 ? text.length : end
    }
    fields.push(field)
    if (i >= text.length) return fields
    i++ // the comma
    if (i === text.length) {
      fields.push('')
      return fields
    }
  }
}
