// A network call inside a database transaction holds a pooled connection and its locks for as long as the
// network takes: the providers refuse to be asked from inside one, so such code fails in every test run.
import { expect, it } from 'vitest'
import { createSql, NetworkCallInTransaction, ProviderPool } from '../src/index.js'
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
