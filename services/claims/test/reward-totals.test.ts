import { createSql, type Sql } from '@genesis/common'
import { createIdentity, type Identity, requireRealPostgres, signedInject } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { ADMIN_TOKEN, CONTRACT, grantMany, setUp, type TestContext } from './helpers.js'

// A page of a user's rewards reads that page and the user's kept total (reward_totals), not the user's
// whole history, however long; and the kept total is the count.
let t: TestContext
let whale: Identity

beforeAll(async () => {
  t = await setUp()
  whale = await createIdentity()
  await t.db.sql`
    insert into rewards (id, "user", chain_id, contract, item_id, created_at)
    select gen_random_uuid(), ${whale.address}, '137', ${CONTRACT}, n, now() - n * interval '1 second'
    from generate_series(1, 3000) as n`
  await t.db.sql`vacuum analyze rewards`
})
afterAll(async () => t?.close())

/** Rows of `rewards` that the app's one connection read (index entries and heap rows), flushed first. */
async function rewardsRead(sql: Sql) {
  await sql`select pg_stat_force_next_flush()`
  await sql`select 1`
  const [row] = await sql<{ n: number }[]>`
    select ((select coalesce(sum(idx_tup_read), 0) from pg_stat_user_indexes where relname = 'rewards')
            + (select coalesce(seq_tup_read, 0) from pg_stat_user_tables where relname = 'rewards'))::int as n`
  return row!.n
}

describe('GET /api/rewards of a user with a long history', () => {
  it('reads the page, not the history, and tells the same total as counting', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const sql = createSql(t.db.url, { max: 1, settings: CLAIMS_DB_SETTINGS })
    const config = loadConfig({
      CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
      CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
    })
    const app = await buildApp({ sql, config })
    try {
      const page = async (url: string) => {
        const response = await signedInject(app, whale, { method: 'GET', url })
        expect(response.statusCode).toBe(200)
        return response.json()
      }
      await page('/api/rewards')
      const before = await rewardsRead(sql)
      for (let i = 0; i < 50; i++) {
        expect((await page('/api/rewards')).pagination).toEqual({
          page: 1,
          limit: 20,
          total: 3000,
          pages: 150,
        })
      }
      const read = (await rewardsRead(sql)) - before
      // each page its 20 rewards, not the 3,000 of the history (counting them: 150,000 for 50 pages);
      // the bound leaves room for what other connections' statistics flush meanwhile
      expect(read).toBeLessThan(50 * 25 + 5_000)
      // past the end: the total still comes from the kept count
      const past = await page('/api/rewards?page=200')
      expect(past.pagination.total).toBe(3000)
    } finally {
      await app.close()
      await sql.end({ timeout: 5 })
    }
  })

  it('keeps the total with every grant, duplicates of a client-chosen id counted once', async () => {
    const fresh = await createIdentity()
    await grantMany(t.app, fresh.address, 25)
    const granted = await grantMany(t.app, fresh.address, 30)
    const repeat = await t.app.inject({
      method: 'POST',
      url: '/api/rewards',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: {
        rewards: granted.slice(0, 3).map((r) => ({
          id: r.id,
          user: r.user,
          chain_id: r.chain_id,
          contract: r.contract,
          item_id: r.item_id,
        })),
      },
    })
    expect(repeat.statusCode).toBe(201)
    const [kept] = await t.db.sql<{ n: number; counted: boolean }[]>`
      select n::int, counted from reward_totals where "user" = ${fresh.address}`
    expect(kept).toEqual({ n: 55, counted: true })
    const body = (await signedInject(t.app, fresh, { method: 'GET', url: '/api/rewards?limit=10' })).json()
    expect(body.pagination.total).toBe(55)
  })
})
