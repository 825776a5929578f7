import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { runNode } from './fixtures.js'
import { useKitDatabase } from './set-up.js'

/*
 * postgres.js is patched (patches/postgres@3.4.9.patch): its Result (an Array) and Query (a Promise) named
 * their species with static getters, and with those V8 never finished optimising their constructors nor the
 * functions that inline them: each attempt was dropped ("dependency change") and made again a few hundred
 * queries later, for the life of the process (PERFORMANCE.md). The species are now data properties, with the
 * same values.
 */
const loop = fileURLToPath(new URL('./fixtures/postgres-query-loop.ts', import.meta.url))
const db = useKitDatabase()

/** V8's dropped optimisations of postgres.js's functions over `queries` queries, by function name. */
function droppedOptimisations(queries: number): string[] {
  const child = runNode(['--import', 'tsx', '--trace-opt', loop, db.url, String(queries)])
  expect(child.status, child.stderr).toBe(0)
  return [...child.stdout.matchAll(/aborted optimizing \S+ <JSFunction (\S+)/g)].map(
    (match) => match[1] as string,
  )
}

it('lets V8 optimise the client’s query and result constructors once, not again and again', () => {
  // unpatched, one dropped attempt every few hundred queries: dozens here
  const dropped = droppedOptimisations(30_000)
  expect(
    dropped.filter((name) => ['Result', 'Query', 'ReadyForQuery', 'sql', 'unsafe'].includes(name)).length,
  ).toBeLessThanOrEqual(2)
}, 90_000)

it('keeps the species: a result maps to a plain array, a query chains to a plain promise', async () => {
  const query = db.sql`select 1 as n union all select 2`
  const chained = query.then((rows) => rows)
  expect(chained.constructor).toBe(Promise)
  const result = await query
  expect(result.count).toBe(2)
  expect(result.command).toBe('SELECT')
  expect(Object.keys(result)).toEqual(['0', '1'])
  const doubled = result.map((row) => row.n * 2)
  expect(doubled.constructor).toBe(Array)
  expect(doubled).toEqual([2, 4])
  expect(JSON.stringify(result)).toBe('[{"n":1},{"n":2}]')
})
