import { createSql } from '@genesis/common'
import { createIdentity, requireRealPostgres, signedInject, tuplesRead } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { ADMIN_TOKEN, CONTRACT, createClaim, grantMany, useIdentities, useService } from './helpers.js'

// A page of a user's rewards or claims reads that page and the user's kept total (user_totals), not the
// user's whole history, however long; and the kept total is the count.
const t = useService()
const [whale] = useIdentities(1)

beforeAll(async () => {
  await t.db.sql`
    insert into rewards (id, "user", chain_id, contract, item_id, created_at)
    select gen_random_uuid(), ${whale.address}, '137', ${CONTRACT}, n, now() - n * interval '1 second'
    from generate_series(1, 3000) as n`
  // every other reward in a settled claim of its own
  await t.db.sql`
    with picked as (select id, row_number() over (order by id) as n from rewards where "user" = ${whale.address})
    insert into claim_transactions (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
      status, transaction_hash, rewards, expires_at)
    select gen_random_uuid(), ${whale.address}, '137', ${CONTRACT}, '0xab', ${`0x${'c'.repeat(64)}`}, 'successful',
      '0x' || md5(id::text) || md5(n::text), array[id], now() + interval '1 hour'
    from picked where n % 2 = 0`
  await t.db.sql`vacuum analyze rewards, claim_transactions`
})

describe('the lists of a user with a long history', () => {
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
      for (const [path, table, total] of [
        ['/api/rewards', 'rewards', 3000],
        ['/api/claim-transactions', 'claim_transactions', 1500],
      ] as const) {
        await page(path)
        const before = await tuplesRead(sql, table)
        for (let i = 0; i < 50; i++) {
          expect((await page(path)).pagination).toEqual({ page: 1, limit: 20, total, pages: total / 20 })
        }
        const read = (await tuplesRead(sql, table)) - before
        // each page its 20 rows, not the history (counting it: 75,000 or 150,000 rows for 50 pages); the
        // bound leaves room for what other connections' statistics flush meanwhile
        expect(read, path).toBeLessThan(50 * 25 + 5_000)
        // past the end: the total still comes from the kept count
        expect((await page(`${path}?page=200`)).pagination.total).toBe(total)
      }
    } finally {
      await app.close()
      await sql.end({ timeout: 5 })
    }
  })

  it('keeps the totals with every grant and create, duplicates of a client-chosen id counted once', async () => {
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
      select rewards::int as n, claims::int, counted from user_totals where "user" = ${fresh.address}`
    expect(kept).toEqual({ n: 55, claims: 0, counted: true })
    const body = (await signedInject(t.app, fresh, { method: 'GET', url: '/api/rewards?limit=10' })).json()
    expect(body.pagination.total).toBe(55)
    // and with every claim
    for (const reward of granted.slice(0, 4)) {
      expect((await createClaim(t.app, fresh, [reward.id])).status).toBe(201)
    }
    const claims = (
      await signedInject(t.app, fresh, { method: 'GET', url: '/api/claim-transactions?limit=2' })
    ).json()
    expect(claims.pagination).toMatchObject({ total: 4, pages: 2 })
  })
})
