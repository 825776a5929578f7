import { signedInject } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sweep } from '../src/jobs/sweeper.js'
import {
  admin,
  CONTRACT,
  claimOf,
  createClaim,
  expire,
  grantMany,
  setUp,
  type TestContext,
  useIdentities,
  useService,
} from './helpers.js'

// The sweeper writes down what the clock decides, and only where the clock may decide: claims of chains
// without an RPC URL, once expired. It must never free the rewards of a voucher that may still be redeemed.
const plain = useService()
/** Chain 137 watched, through an RPC URL nobody answers (a closed port). */
const watched = useService({ env: { RPC_URL_137: 'http://127.0.0.1:1', CLAIMS_CONFIRMATIONS: '0' } })
const [alice] = useIdentities(1)

async function newClaim(t: TestContext) {
  const [reward] = await grantMany(t.app, alice.address, 1, {
    item_id: String(Math.floor(Math.random() * 1e9)),
  })
  return { claim: claimOf((await createClaim(t.app, alice, [reward!.id])).body), rewardId: reward!.id }
}
const stored = async (t: TestContext, id: string) =>
  (await t.db.sql<{ status: string }[]>`select status from claim_transactions where id = ${id}`)[0]!.status
const claimable = async (t: TestContext, rewardId: string) =>
  (await signedInject(t.app, alice, { method: 'GET', url: '/api/rewards?limit=100' }))
    .json()
    .data.find((r: { id: string }) => r.id === rewardId).claimable

describe('the sweeper never frees a live voucher', () => {
  // Mutation guarded: dropping `expires_at <= now()` from expiredClaimsFailing (db/claim-transactions.ts,
  // the sweeper's statement) → every claimed claim is failed at the next sweep, its rewards freed while the
  // voucher is valid: a second claim could mint them again.
  it('without an RPC URL: an unexpired claim is left alone; an expired one is written failed', async () => {
    const live = await newClaim(plain)
    const old = await newClaim(plain)
    await expire(plain.db, old.claim.id)
    const report = await sweep(plain.db.sql)
    expect(report.expired).toBeGreaterThanOrEqual(1)
    expect(await stored(plain, live.claim.id)).toBe('claimed')
    expect(await claimable(plain, live.rewardId)).toBe(false)
    expect((await createClaim(plain.app, alice, [live.rewardId])).body).toMatchObject({
      code: 'reward_already_claimed',
    })
    expect(await stored(plain, old.claim.id)).toBe('failed')
    expect(await claimable(plain, old.rewardId)).toBe(true)
  })

  // Mutation guarded: dropping `not watched` from expiredClaimsFailing → an expired claim of a watched
  // chain is failed by the clock, though its voucher may have been redeemed and never reported.
  it('with an RPC URL: an expired claim stays live and reads claimed; only the chain may end it', async () => {
    const { claim, rewardId } = await newClaim(watched)
    await expire(watched.db, claim.id)
    expect((await sweep(watched.db.sql)).expired).toBe(0)
    expect(await stored(watched, claim.id)).toBe('claimed')
    const read = await signedInject(watched.app, alice, {
      method: 'GET',
      url: `/api/claim-transactions/${claim.id}`,
    })
    expect(read.json().data.status).toBe('claimed')
    expect(await claimable(watched, rewardId)).toBe(false)
    expect((await createClaim(watched.app, alice, [rewardId])).body).toMatchObject({
      code: 'reward_already_claimed',
    })
    // the operator cannot end it without the chain either: the node is unreachable, nothing changes
    const failed = await watched.app.inject({
      method: 'PATCH',
      url: `/api/claim-transactions/${claim.id}`,
      headers: admin,
      payload: { status: 'failed' },
    })
    expect(failed.statusCode).toBe(503)
    expect(failed.json()).toMatchObject({ ok: false, code: 'service_unavailable' })
    expect(await stored(watched, claim.id)).toBe('claimed')
    // an expired watched claim still takes a report: the wallet's send may be on its way
    const reported = await signedInject(watched.app, alice, {
      method: 'PATCH',
      url: `/api/claim-transactions/${claim.id}`,
      payload: { transaction_hash: `0x${'ab'.repeat(32)}` },
    })
    expect(reported.json().data.status).toBe('pending')
  })
})

describe('in production, a grant needs the chain watched', () => {
  let production: TestContext
  beforeAll(async () => {
    production = await setUp({ env: { NODE_ENV: 'production', RPC_URL_80002: 'http://127.0.0.1:1' } })
  })
  afterAll(async () => production?.close())

  const grantOn = (chainIds: string[]) =>
    production.app.inject({
      method: 'POST',
      url: '/api/rewards',
      headers: admin,
      payload: {
        rewards: chainIds.map((chain_id, i) => ({
          user: alice.address,
          chain_id,
          contract: CONTRACT,
          item_id: String(i),
        })),
      },
    })

  it('a chain without RPC_URL_<chain_id> is 400 chain_not_configured, and nothing of the grant is written', async () => {
    const refused = await grantOn(['80002', '137'])
    expect(refused.statusCode).toBe(400)
    expect(refused.json()).toMatchObject({
      ok: false,
      code: 'chain_not_configured',
      data: { chain_ids: ['137'] },
    })
    const [count] = await production.db.sql<{ n: number }[]>`select count(*)::int as n from rewards`
    expect(count?.n).toBe(0)
    expect((await grantOn(['80002'])).statusCode).toBe(201)
  })
})
