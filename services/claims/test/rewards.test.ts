import { randomUUID } from 'node:crypto'
import { createIdentity, signedInject } from '@genesis/common/testing'
import { describe, expect, it } from 'vitest'
import {
  admin,
  CONTRACT,
  claimOf,
  createClaim,
  expire,
  grantMany,
  setUp,
  useIdentities,
  useService,
} from './helpers.js'

const t = useService()
const [alice] = useIdentities(1)

const grantBody = (overrides: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  user: alice.address,
  chain_id: '137',
  contract: CONTRACT,
  item_id: '5',
  ...overrides,
})
const postGrant = (rewards: unknown, headers: Record<string, string> = admin) =>
  t.app.inject({ method: 'POST', url: '/api/rewards', headers, payload: { rewards } })
const count = async () => Number((await t.db.sql`select count(*)::int as n from rewards`)[0]!.n)

describe('POST /api/rewards (operator)', () => {
  it('grants rewards, normalising addresses and item ids', async () => {
    const reward = grantBody({
      user: alice.wallet.address, // checksummed
      contract: '0xABCDEFabcdefABCDEFabcdefABCDEFabcdefABCD',
      item_id: '007',
      campaign: 'launch',
    })
    const response = await postGrant([reward])
    expect(response.statusCode).toBe(201)
    expect(response.json().data).toEqual([
      {
        id: reward.id,
        user: alice.address,
        chain_id: '137',
        contract: '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd',
        item_id: '7',
        campaign: 'launch',
        claimable: true,
        claim_transaction_id: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ])
  })

  it('refuses a numeric chain_id saying it must be a string, once', async () => {
    const response = await postGrant([grantBody({ chain_id: 137 })])
    expect(response.statusCode).toBe(400)
    const { error, data } = response.json()
    expect(error).toBe(
      'body.rewards.0.chain_id must be string (one of 1, 3, 4, 5, 42, 137, 80001, 80002, 11155111), got 137',
    )
    expect(data.errors).toHaveLength(1)
  })

  it('accepts item ids up to the largest uint256', async () => {
    const max = ((1n << 256n) - 1n).toString()
    const response = await postGrant([grantBody({ item_id: max })])
    expect(response.statusCode).toBe(201)
    expect(response.json().data[0].item_id).toBe(max)
  })

  it('generates ids when none are given', async () => {
    const { id: _id, ...withoutId } = grantBody()
    const response = await postGrant([withoutId, withoutId])
    expect(response.statusCode).toBe(201)
    const [a, b] = response.json().data
    expect(a.id).not.toBe(b.id)
  })

  it('is idempotent on a client-supplied id; other content under that id is 409 and grants nothing', async () => {
    const reward = grantBody()
    const first = await postGrant([reward])
    const again = await postGrant([reward])
    expect(again.statusCode).toBe(201)
    expect(again.json().data).toEqual(first.json().data)

    const before = await count()
    const fresh = grantBody()
    const conflicting = await postGrant([fresh, { ...reward, item_id: '6' }])
    expect(conflicting.statusCode).toBe(409)
    expect(conflicting.json()).toMatchObject({ code: 'reward_id_conflict', data: { rewards: [reward.id] } })
    expect(await count()).toBe(before)
  })

  // guards grantRewards' field-by-field comparison: each of `row.user === reward.user`, `row.chain_id ===
  // reward.chainId`, `row.contract === reward.contract` and `row.campaign === reward.campaign` → `true` (or
  // an `&&` → `||`) makes one of these retries a silent no-op that answers the old grant as if it were the new
  it('a retry under a granted id with any one field changed is 409 reward_id_conflict', async () => {
    const bob = await createIdentity()
    const reward = grantBody({ campaign: 'launch' })
    expect((await postGrant([reward])).statusCode).toBe(201)
    const changes: Record<string, unknown>[] = [
      { user: bob.address },
      { chain_id: '1' },
      { contract: `0x${'9'.repeat(40)}` },
      { campaign: 'other' },
      { campaign: undefined },
      { item_id: '6' },
    ]
    for (const change of changes) {
      const response = await postGrant([{ ...reward, ...change }])
      expect(response.statusCode, JSON.stringify(change)).toBe(409)
      expect(response.json()).toMatchObject({ code: 'reward_id_conflict', data: { rewards: [reward.id] } })
    }
  })

  // guards the paths and messages refuseInvalid writes (each → "" or {} survives a status-only check)
  it('names the reward and the field at fault', async () => {
    const repeated = grantBody()
    const tooBig = await postGrant([grantBody(), grantBody({ item_id: (1n << 256n).toString() })])
    expect(tooBig.statusCode).toBe(400)
    expect(tooBig.json().data.errors).toEqual([
      { path: 'body.rewards.1.item_id', message: 'exceeds uint256' },
    ])
    const twice = await postGrant([repeated, grantBody(), { ...repeated, id: repeated.id.toUpperCase() }])
    expect(twice.statusCode).toBe(400)
    expect(twice.json().data.errors).toEqual([
      { path: 'body.rewards.2.id', message: `repeats ${repeated.id}` },
    ])
  })

  it('is all or nothing: one bad reward grants none', async () => {
    const before = await count()
    const cases = [
      [grantBody(), grantBody({ chain_id: '2' })],
      [grantBody(), grantBody({ user: 'alice' })],
      [grantBody(), grantBody({ item_id: '-1' })],
      [grantBody(), grantBody({ item_id: `2${'0'.repeat(77)}` })], // > uint256 (about 1.16e77)
      [grantBody(), grantBody({ colour: 'red' })],
      [
        grantBody({ id: 'f0000000-0000-4000-8000-000000000000' }),
        grantBody({ id: 'f0000000-0000-4000-8000-000000000000' }),
      ],
    ]
    for (const rewards of cases) {
      const response = await postGrant(rewards)
      expect(response.statusCode, JSON.stringify(rewards[1])).toBe(400)
      expect(response.json()).toMatchObject({ ok: false, code: 'bad_request' })
    }
    expect((await postGrant([])).statusCode).toBe(400)
    expect((await postGrant('nope')).statusCode).toBe(400)
    expect(await count()).toBe(before)
  })

  it('needs the admin token: 401 without or wrong, 403 for a signed user', async () => {
    const body = [grantBody()]
    expect((await postGrant(body, {})).statusCode).toBe(401)
    const wrong = await postGrant(body, { authorization: 'Bearer wrong-token-wrong-token' })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json()).toMatchObject({ ok: false, code: 'unauthorized', data: { reason: 'invalid_token' } })
    expect((await postGrant(body, { authorization: 'Basic abc' })).statusCode).toBe(401)
    // unauthenticated with a bad body is still 401 (authentication comes first)
    const badBody = await t.app.inject({
      method: 'POST',
      url: '/api/rewards',
      payload: '{nope',
      headers: { 'content-type': 'application/json' },
    })
    expect(badBody.statusCode).toBe(401)

    const signed = await signedInject(t.app, alice, {
      method: 'POST',
      url: '/api/rewards',
      payload: { rewards: body },
    })
    expect(signed.statusCode).toBe(403)
    expect(signed.json()).toMatchObject({ ok: false, code: 'forbidden' })
  })

  it('is 401 for everybody when CLAIMS_ADMIN_TOKEN is not configured', async () => {
    const off = await setUp({ adminToken: undefined })
    try {
      const response = await off.app.inject({
        method: 'POST',
        url: '/api/rewards',
        headers: admin,
        payload: { rewards: [grantBody()] },
      })
      expect(response.statusCode).toBe(401)
      expect(response.json().data.reason).toBe('admin_disabled')
    } finally {
      await off.close()
    }
  })
})

describe('answers stay small whatever the input', () => {
  it('a 300,000-element rewards array is one short 400, not one message per element', async () => {
    const payload = `{"rewards":[${Array.from({ length: 300_000 }, () => '1').join(',')}]}`
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/rewards',
      headers: { ...admin, 'content-type': 'application/json' },
      payload,
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ ok: false, code: 'bad_request' })
    expect(response.body.length).toBeLessThan(2048)
  })

  it.each([
    ['/api/claim-transactions/%zz', 400, 'bad_request'],
    ['/api/claim-transactions/%c0%ae%c0%ae%c0%af', 400, 'bad_request'],
    [`/api/claim-transactions/${'a'.repeat(10_000)}`, 414, 'uri_too_long'],
  ])('%s answers in the envelope', async (url, status, code) => {
    const response = await t.app.inject({ method: 'GET', url, headers: admin })
    expect(response.statusCode).toBe(status)
    expect(response.json()).toMatchObject({ ok: false, code })
  })
})

describe('GET /api/rewards', () => {
  it("lists the caller's rewards with claimable and the live claim id, following the claim's life", async () => {
    const dave = await createIdentity()
    const [first, second] = await grantMany(t.app, dave.address, 2)
    const list = async () => {
      const response = await signedInject(t.app, dave, { method: 'GET', url: '/api/rewards' })
      expect(response.statusCode).toBe(200)
      return response.json()
    }
    const initial = await list()
    expect(initial.pagination).toEqual({ page: 1, limit: 20, total: 2, pages: 1 })
    // granted in one statement: same created_at, then id descending
    expect(initial.data.map((r: { id: string }) => r.id)).toEqual([second!.id, first!.id].sort().reverse())
    expect(initial.data.every((r: { claimable: boolean }) => r.claimable)).toBe(true)

    const claim = claimOf((await createClaim(t.app, dave, [first!.id])).body)
    const claimed = await list()
    const byId = (
      body: { data: { id: string; claimable: boolean; claim_transaction_id: string | null }[] },
      id: string,
    ) => body.data.find((r) => r.id === id)!
    expect(byId(claimed, first!.id)).toMatchObject({ claimable: false, claim_transaction_id: claim.id })
    expect(byId(claimed, second!.id)).toMatchObject({ claimable: true, claim_transaction_id: null })

    await expire(t.db, claim.id)
    const expired = await list()
    expect(byId(expired, first!.id)).toMatchObject({ claimable: true, claim_transaction_id: null })

    // the operator sees the same list by naming the user
    const operator = await t.app.inject({
      method: 'GET',
      url: `/api/rewards?user=${dave.address}`,
      headers: admin,
    })
    expect(operator.json().data).toEqual(expired.data)
    expect((await t.app.inject({ method: 'GET', url: '/api/rewards' })).statusCode).toBe(401)
  })
})

describe('list totals', () => {
  // A page that ends the list tells the total itself, without counting; every other page counts. Each
  // (page, limit) around the ends of a list of 5: the same total, and the rows of that window.
  it('are the same whichever page and limit ask, whether or not the page ends the list', async () => {
    const erin = await createIdentity()
    const granted = await grantMany(t.app, erin.address, 5)
    const claims = [claimOf((await createClaim(t.app, erin, [granted[0]!.id])).body)]
    for (const reward of granted.slice(1, 3)) {
      claims.push(claimOf((await createClaim(t.app, erin, [reward.id])).body))
    }
    const newestFirst = (await signedInject(t.app, erin, { method: 'GET', url: '/api/rewards?limit=100' }))
      .json()
      .data.map((r: { id: string }) => r.id)
    const claimsNewestFirst = (
      await signedInject(t.app, erin, { method: 'GET', url: '/api/claim-transactions?limit=100' })
    )
      .json()
      .data.map((c: { id: string }) => c.id)
    for (const [path, all] of [
      ['/api/rewards', newestFirst],
      ['/api/claim-transactions', claimsNewestFirst],
    ] as const) {
      for (let limit = 1; limit <= 6; limit++) {
        for (let page = 1; page <= 7; page++) {
          const body = (
            await signedInject(t.app, erin, { method: 'GET', url: `${path}?page=${page}&limit=${limit}` })
          ).json()
          expect(body.pagination, `${path} page ${page} limit ${limit}`).toEqual({
            page,
            limit,
            total: all.length,
            pages: Math.ceil(all.length / limit),
          })
          expect(body.data.map((r: { id: string }) => r.id)).toEqual(
            all.slice((page - 1) * limit, page * limit),
          )
        }
      }
    }
  })
})
