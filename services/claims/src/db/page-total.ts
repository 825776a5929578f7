/**
 * The total of a list when its page already tells it: a page with fewer rows than asked for, and some of
 * them or none from the start, ends the list, so the total is the rows before it plus its own. Only a full
 * page (or one past the end) needs `count`: most users' lists fit one page, and then no request counts
 * their history.
 */
export async function pageTotal(
  rows: readonly unknown[],
  page: { limit: number; offset: number },
  count: () => Promise<number>,
): Promise<number> {
  if (rows.length < page.limit && (rows.length > 0 || page.offset === 0)) return page.offset + rows.length
  return count()
}
