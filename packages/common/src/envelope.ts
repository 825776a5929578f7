import type { PageQuery } from '@genesis/wire'

export const ok = <T>(data: T) => ({ ok: true as const, data })

/**
 * `ok(data)` as JSON around a value serialised already: the bytes of `JSON.stringify(ok(data))` when
 * `dataJson` is `JSON.stringify(data)`. For answers serialised once and sent as they are, skipping the
 * route's response serialiser.
 */
export const okJson = (dataJson: string) => `{"ok":true,"data":${dataJson}}`

export const paged = <T>(data: T[], page: { page: number; limit: number; total: number }) => ({
  ok: true as const,
  data,
  pagination: {
    page: page.page,
    limit: page.limit,
    total: page.total,
    pages: Math.ceil(page.total / page.limit),
  },
})

export const offsetOf = (page: PageQuery) => (page.page - 1) * page.limit
