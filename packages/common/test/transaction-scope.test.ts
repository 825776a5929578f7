// A network call inside a database transaction holds a pooled connection and its locks for as long as the
// network takes: the providers refuse to be asked from inside one, so such code fails in every test run.
import { expect, it } from 'vitest'
import { createSql, NetworkCallInTransaction, ProviderPool, transactionScopeTracking } from '../src/index.js'
import { useKitDatabase } from './set-up.js'

const db = useKitDatabase()

it('a chain call inside sql.begin is refused before anything is sent; outside it is sent', async () => {
  const pool = new ProviderPool({ urls: ['http://127.0.0.1:1'], name: 'RPC_URL', timeoutMs: 200 })
  const sql = createSql(db.url, { max: 2 })
  try {
    const inside = await sql
      .begin(async (tx) => {
        await tx`select 1`
        return pool.send([{ method: 'eth_blockNumber', params: [] }])
      })
      .catch((error: unknown) => error)
    expect(inside).toBeInstanceOf(NetworkCallInTransaction)
    expect(String(inside)).toMatch(/A call to RPC_URL was made inside a database transaction/)
    // also with options before the callback, and for a look at the head
    const withOptions = await sql.begin('read write', () => pool.head()).catch((error: unknown) => error)
    expect(withOptions).toBeInstanceOf(NetworkCallInTransaction)
    // outside a transaction the call is made (and fails on its own account: nothing listens there)
    const outside = await pool
      .send([{ method: 'eth_blockNumber', params: [] }])
      .catch((error: unknown) => error)
    expect(outside).toBeInstanceOf(Error)
    expect(outside).not.toBeInstanceOf(NetworkCallInTransaction)
  } finally {
    await sql.end()
  }
})

it('tracks only while a transaction is open: one ending leaves another still marked, and the last turns it off', async () => {
  const pool = new ProviderPool({ urls: ['http://127.0.0.1:1'], name: 'RPC_URL', timeoutMs: 200 })
  const sql = createSql(db.url, { max: 3 })
  const call = () => pool.send([{ method: 'eth_blockNumber', params: [] }]).catch((error: unknown) => error)
  try {
    expect(transactionScopeTracking()).toBe(false)
    let endFirst!: () => void
    const firstMayEnd = new Promise<void>((resolve) => {
      endFirst = resolve
    })
    let secondInside!: () => void
    const secondIsInside = new Promise<void>((resolve) => {
      secondInside = resolve
    })
    const first = sql.begin(async (tx) => {
      await tx`select 1`
      await firstMayEnd
    })
    const second = sql.begin(async (tx) => {
      await tx`select 1`
      secondInside()
      // the first has ended meanwhile: this one is still inside its own
      await first
      expect(transactionScopeTracking()).toBe(true)
      return call()
    })
    await secondIsInside
    expect(transactionScopeTracking()).toBe(true)
    // outside both, while they are open, the call is made
    expect(await call()).not.toBeInstanceOf(NetworkCallInTransaction)
    endFirst()
    expect(await second).toBeInstanceOf(NetworkCallInTransaction)
    expect(transactionScopeTracking()).toBe(false)
    // a transaction that throws ends its mark too
    await sql
      .begin(() => {
        throw new Error('given up')
      })
      .catch(() => undefined)
    expect(transactionScopeTracking()).toBe(false)
    const later = await sql
      .begin(async (tx) => {
        await tx`select 1`
        return call()
      })
      .catch((error: unknown) => error)
    expect(later).toBeInstanceOf(NetworkCallInTransaction)
    expect(await call()).not.toBeInstanceOf(NetworkCallInTransaction)
  } finally {
    await sql.end()
  }
})
