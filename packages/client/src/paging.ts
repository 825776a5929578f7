/** One page of a list, whether the service pages by `page` (claims, collections) or by `offset` (land). */
export interface Page<T> {
  items: T[]
  /** From 1. */
  page: number
  limit: number
  total: number
  pages: number
  /**
   * Collections' lists only: the next page's cursor (`cursor` of the next request), however deep; null on
   * the last page.
   */
  nextCursor?: string | null
}

export interface PageRequest {
  page?: number
  limit?: number
}

/**
 * Every page from `start.page` (default 1) on, fetched one at a time as the loop asks for it; stops after
 * the last page (or at the first empty one, should the list shrink meanwhile).
 */
export async function* pages<T>(
  fetchPage: (request: { page: number; limit?: number }) => Promise<Page<T>>,
  start: PageRequest = {},
): AsyncGenerator<Page<T>, void, undefined> {
  for (let page = start.page ?? 1; ; page++) {
    const current = await fetchPage({ page, ...(start.limit !== undefined ? { limit: start.limit } : {}) })
    yield current
    if (current.items.length === 0 || current.page >= current.pages) return
  }
}

/**
 * Every page of a list that answers a cursor for the next one (the collections' lists): the first page as
 * `start` asks, then each next page by its cursor, so that a deep page costs what the first does. Stops
 * after the page without a next cursor.
 */
export async function* cursorPages<T, R extends { page?: number; cursor?: string }>(
  fetchPage: (request: R) => Promise<Page<T>>,
  start: R,
): AsyncGenerator<Page<T>, void, undefined> {
  let current = await fetchPage(start)
  for (;;) {
    yield current
    if (!current.nextCursor) return
    const { page: _page, ...rest } = start
    current = await fetchPage({ ...rest, cursor: current.nextCursor } as R)
  }
}

/** The items of every page, in order. */
export async function* items<T>(source: AsyncIterable<Page<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of source) yield* page.items
}

/** Collects an async iterable into an array (mind the size of what you collect). */
export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = []
  for await (const item of source) all.push(item)
  return all
}

export const pageOf = <T>(
  items: T[],
  pagination:
    | { page: number; limit: number; total: number; pages: number; next_cursor?: string | null }
    | undefined,
): Page<T> => {
  if (!pagination) throw new Error('The answer has no pagination')
  const { next_cursor, ...numbers } = pagination
  return next_cursor === undefined ? { items, ...numbers } : { items, ...numbers, nextCursor: next_cursor }
}

/** Land lists answer `{ <things>, total }` for an `offset` and `limit`: the same page shape from those. */
export const pageFromOffset = <T>(items: T[], total: number, offset: number, limit: number): Page<T> => ({
  items,
  page: Math.floor(offset / limit) + 1,
  limit,
  total,
  pages: Math.ceil(total / limit),
})
