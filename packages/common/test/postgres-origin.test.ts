import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { expect, it } from 'vitest'
import type { Sql } from '../src/index.js'
import { useTestDatabase } from '../src/testing/vitest.js'

/*
 * postgres.js keeps one Error per statement, made when the statement first runs, to give later errors
 * their origin. An Error holds the frames it was made in until its stack is read, and with them the
 * closures of the statement's first caller: whatever that caller's scope held stayed in memory for the
 * life of the process (land's seed set, 20 MB and more). patches/postgres@3.4.9.patch reads the stack
 * at once, so only its text is kept.
 */
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const db = useTestDatabase()

/** A caller whose scope holds `big` and that runs a statement no other code runs. */
function callerHolding(big: Uint8Array) {
  return async (sql: Sql) => {
    const [row] = await sql`select ${big.length}::int as size -- only this test's statement`
    return row?.size as number
  }
}

it("does not keep a statement's first caller (and what its scope holds) alive", async () => {
  let big: Uint8Array | undefined = new Uint8Array(1024 * 1024)
  const collected = new WeakRef(big)
  let caller: ((sql: Sql) => Promise<number>) | undefined = callerHolding(big)
  expect(await caller(db.sql)).toBe(1024 * 1024)
  big = undefined
  caller = undefined
  for (let i = 0; i < 10 && collected.deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
  }
  expect(collected.deref()).toBeUndefined()
})
