import { offsetOf } from '@genesis/common'
import { MAX_PAGED_ROWS } from '@genesis/wire/collections'
import type { ListedPage, Page } from '../db/collections.js'
import { decodeCursor, encodeCursor } from '../domain/cursor.js'
import { invalidField, pageTooDeep } from '../errors.js'

/** The page a collection list asks for: after a cursor (keyset, any depth), or a page number (bounded). */
export interface ListRequestPage {
  /** The page's number, as answered in pagination.page. */
  number: number
  page: Page
}

export function listRequestPage(query: {
  page: number
  limit: number
  cursor?: string | undefined
}): ListRequestPage {
  if (query.cursor !== undefined) {
    if (query.page !== 1) {
      throw invalidField(
        'query.page',
        'goes with cursor only as 1 or left out: the cursor says which page it is',
      )
    }
    const cursor = decodeCursor(query.cursor)
    return { number: cursor.page, page: { limit: query.limit, offset: 0, after: cursor.after } }
  }
  // an OFFSET reads every row before the page: deeper pages go by the cursor, which starts at its row
  if (query.page * query.limit > MAX_PAGED_ROWS) throw pageTooDeep(MAX_PAGED_ROWS)
  return { number: query.page, page: { limit: query.limit, offset: offsetOf(query) } }
}

/** The answer's envelope: the page, its total, and the cursor of the next page when there is one. */
export const cursorPaged = <T>(
  data: T[],
  request: ListRequestPage,
  listed: Pick<ListedPage<unknown>, 'total' | 'last'>,
) => ({
  ok: true as const,
  data,
  pagination: {
    page: request.number,
    limit: request.page.limit,
    total: listed.total,
    pages: Math.ceil(listed.total / request.page.limit),
    next_cursor: listed.last ? encodeCursor({ after: listed.last, page: request.number + 1 }) : null,
  },
})
