import type { Position } from '../db/collections.js'
import { invalidField } from '../errors.js'

/**
 * A keyset cursor: the position of a page's last row in the list's order (created_at to the microsecond,
 * id) and the number of the page it opens, as base64url JSON. It only says where to start: a cursor
 * spelled by hand reads the page after that position, which the caller may read anyway.
 */
export interface ListCursor {
  after: Position
  page: number
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export const encodeCursor = (cursor: ListCursor): string =>
  Buffer.from(JSON.stringify([cursor.after.createdAt, cursor.after.id, cursor.page])).toString('base64url')

const notOurs = () =>
  invalidField('query.cursor', 'is not a cursor this service gave: use pagination.next_cursor as answered')

/** The cursor as sent, checked: 400 for anything the service would not have written. */
export function decodeCursor(text: string): ListCursor {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    throw notOurs()
  }
  if (!Array.isArray(value) || value.length !== 3) throw notOurs()
  const [createdAt, id, page] = value as unknown[]
  if (
    typeof createdAt !== 'string' ||
    !AT.test(createdAt) ||
    Number.isNaN(Date.parse(createdAt)) ||
    typeof id !== 'string' ||
    !UUID.test(id) ||
    typeof page !== 'number' ||
    !Number.isSafeInteger(page) ||
    page < 2
  ) {
    throw notOurs()
  }
  return { after: { createdAt, id }, page }
}
