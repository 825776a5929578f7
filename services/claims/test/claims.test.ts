import { randomUUID } from 'node:crypto'
import { createIdentity, signedHeaders, signedInject } from '@genesis/common/testing'
import { keccak256, verifyTypedData } from 'ethers'
import { beforeAll, describe, expect, it } from 'vitest'
import { claimIdToBytes32, claimInterface, VOUCHER_TYPES } from '../src/chain/voucher.js'
import {
  admin,
  CONTRACT,
  claimOf,
  createClaim,
  expire,
  grant,
  grantMany,
  OTHER_CONTRACT,
  useIdentities,
  useService,
} from './helpers.js'

const t = useService({ claimTtlS: 3600 })
const [alice, bob] = useIdentities(2)

/** A create sent with the given headers as they are (no fresh signature). */
const sendCreate = (headers: Record<string, string>, rewards: string[]) =>
  t.app.inject({ method: 'POST', url: '/api/claim-transactions', headers, payload: { rewards } })

describe('POST /api/claim-transactions', () => {
  it('creates a claim with a voucher signed by the service key', async () => {
    const rewards = await grant(t.app, alice.address, [
      { item_id: '42' },
      { item_id: '7' },
      { item_id: '42' },
    ])
    // request order, not grant order, decides the order of itemIds
    const ids = [rewards[1]!.id, rewards[0]!.id, rewards[2]!.id]
    const before = Math.floor(Date.now() / 1000)
    const { status, body } = await createClaim(t.app, alice, ids)
    expect(status).toBe(201)
    const claim = claimOf(body)
    expect(claim).toMatchObject({
      user: alice.address,
      chain_id: '137',
      contract: CONTRACT,
      status: 'claimed',
      rewards: ids,
      transaction_hash: null,
    })
    expect(claim.id).toMatch(/^[0-9a-f-]{36}$/)
    const expiresAt = Date.parse(claim.expires_at) / 1000
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3600)
    expect(expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600)
    expect(Date.parse(claim.created_at)).toBeLessThanOrEqual(Date.parse(claim.updated_at))

    // the payload is the calldata of claim(voucher, signature), hashed with keccak256
    expect(claim.transaction_payload_hash).toBe(keccak256(claim.transaction_payload))
    const [voucher, signature] = claimInterface.decodeFunctionData('claim', claim.transaction_payload)
    expect(voucher.claimId).toBe(claimIdToBytes32(claim.id))
    expect(voucher.beneficiary.toLowerCase()).toBe(alice.address)
    expect(voucher.itemIds.map(String)).toEqual(['7', '42', '42'])
    expect(voucher.expiresAt).toBe(BigInt(expiresAt))

    // and the signature recovers to the service signer over the RewardsDispenser domain
    const domain = { name: 'RewardsDispenser', version: '1', chainId: 137, verifyingContract: CONTRACT }
    const plain = {
      claimId: voucher.claimId,
      beneficiary: voucher.beneficiary,
      itemIds: [...voucher.itemIds],
      expiresAt: voucher.expiresAt,
    }
    expect(verifyTypedData(domain, VOUCHER_TYPES, plain, signature).toLowerCase()).toBe(
      t.signerWallet.address.toLowerCase(),
    )

    // the signer address is public
    const signer = await t.app.inject({ method: 'GET', url: '/api/signer' })
    expect(signer.json().data.address).toBe(t.signerWallet.address.toLowerCase())
  })

  it('accepts upper-case uuids and answers lower-case', async () => {
    const [reward] = await grantMany(t.app, alice.address, 1)
    const { status, body } = await createClaim(t.app, alice, [reward!.id.toUpperCase()])
    expect(status).toBe(201)
    expect(claimOf(body).rewards).toEqual([reward!.id])
  })

  it("reports other users' and unknown rewards as not found, listing them", async () => {
    const [mine] = await grantMany(t.app, alice.address, 1)
    const [bobs] = await grantMany(t.app, bob.address, 1)
    const unknown = randomUUID()
    const { status, body } = await createClaim(t.app, alice, [mine!.id, bobs!.id, unknown])
    expect(status).toBe(400)
    expect(body).toMatchObject({
      ok: false,
      code: 'reward_not_found',
      data: { rewards: [bobs!.id, unknown] },
    })
  })

  it('refuses rewards of different chains or contracts (mixed_rewards)', async () => {
    const rewards = await grant(t.app, alice.address, [{ chain_id: '137' }, { chain_id: '1' }])
    const mixedChains = await createClaim(
      t.app,
      alice,
      rewards.map((r) => r.id),
    )
    expect(mixedChains.status).toBe(400)
    expect(mixedChains.body).toMatchObject({ code: 'mixed_rewards', data: { chain_ids: ['137', '1'] } })

    const others = await grant(t.app, alice.address, [{ contract: CONTRACT }, { contract: OTHER_CONTRACT }])
    const mixedContracts = await createClaim(
      t.app,
      alice,
      others.map((r) => r.id),
    )
    expect(mixedContracts.status).toBe(400)
    expect(mixedContracts.body).toMatchObject({ code: 'mixed_rewards' })
  })

  it('refuses a reward that is already in a live claim, listing it', async () => {
    const [a, b] = await grantMany(t.app, alice.address, 2)
    expect((await createClaim(t.app, alice, [a!.id])).status).toBe(201)
    const { status, body } = await createClaim(t.app, alice, [b!.id, a!.id])
    expect(status).toBe(400)
    expect(body).toMatchObject({ ok: false, code: 'reward_already_claimed', data: { rewards: [a!.id] } })
  })

  it('accepts up to 100 rewards in one claim', async () => {
    const rewards = await grantMany(t.app, alice.address, 100)
    const { status, body } = await createClaim(
      t.app,
      alice,
      rewards.map((r) => r.id),
    )
    expect(status).toBe(201)
    const claim = claimOf(body)
    expect(claim.rewards).toHaveLength(100)
    const [voucher] = claimInterface.decodeFunctionData('claim', claim.transaction_payload)
    expect(voucher.itemIds).toHaveLength(100)
  })

  describe('bad input: 400 in the envelope, naming the problem', () => {
    const post = (payload: string | undefined, contentType = 'application/json') =>
      signedInject(t.app, alice, {
        method: 'POST',
        url: '/api/claim-transactions',
        ...(payload === undefined ? {} : { payload, headers: { 'content-type': contentType } }),
      })

    const cases: [string, string | undefined, RegExp][] = [
      ['a missing body', undefined, /JSON object body is required/],
      ['an empty JSON body', '', /body is empty/],
      ['a non-JSON body', '{rewards: [', /not valid JSON/],
      ['a JSON array body', '[]', /JSON object body is required/],
      ['no rewards field', '{}', /body\.rewards is required/],
      [
        'rewards not an array',
        '{"rewards":"0b6a1f4e-8a55-4c1e-9f0e-3c2b7d9a1e55"}',
        /body\.rewards must be array/,
      ],
      ['a non-uuid id', '{"rewards":["not-a-uuid"]}', /body\.rewards\.0 must match format "uuid"/],
      ['a number as id', '{"rewards":[42]}', /body\.rewards\.0 must be string/],
      ['0 ids', '{"rewards":[]}', /body\.rewards must NOT have fewer than 1 items/],
      [
        'duplicate ids',
        '{"rewards":["0b6a1f4e-8a55-4c1e-9f0e-3c2b7d9a1e55","0b6a1f4e-8a55-4c1e-9f0e-3c2b7d9a1e55"]}',
        /duplicate items/,
      ],
      [
        'duplicates differing in case',
        '{"rewards":["0b6a1f4e-8a55-4c1e-9f0e-3c2b7d9a1e55","0B6A1F4E-8A55-4C1E-9F0E-3C2B7D9A1E55"]}',
        /must not repeat an id/,
      ],
      [
        'an unknown field',
        '{"rewards":["0b6a1f4e-8a55-4c1e-9f0e-3c2b7d9a1e55"],"chain_id":"1"}',
        /body\.chain_id is not an accepted field/,
      ],
    ]
    it.each(cases)('%s', async (_name, payload, message) => {
      const response = await post(payload)
      expect(response.statusCode).toBe(400)
      const body = response.json()
      expect(body).toMatchObject({ ok: false, code: 'bad_request' })
      expect(body.error).toMatch(message)
    })

    // guards refuseDuplicates' list (`[...duplicates]` → `[]`): the answer names the repeated id
    it('duplicates differing in case name the id, in its canonical form', async () => {
      const id = '0b6a1f4e-8a55-4c1e-9f0e-3c2b7d9a1e55'
      const response = await post(JSON.stringify({ rewards: [id, randomUUID(), id.toUpperCase()] }))
      expect(response.statusCode).toBe(400)
      expect(response.json().data).toMatchObject({ rewards: [id] })
      expect(response.json().error).toContain(id)
    })

    it('101 ids', async () => {
      const response = await post(
        JSON.stringify({ rewards: Array.from({ length: 101 }, () => randomUUID()) }),
      )
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ ok: false, code: 'bad_request' })
      expect(response.json().error).toMatch(/body\.rewards must NOT have more than 100 items/)
    })

    it('a body larger than a create can hold: 413 before it is parsed', async () => {
      const ids = Array.from({ length: 100 }, () => randomUUID())
      // 100 ids pretty-printed are well within the limit
      expect((await post(JSON.stringify({ rewards: ids }, null, 8))).json().code).toBe('reward_not_found')
      const response = await post(JSON.stringify({ rewards: ids, padding: 'x'.repeat(16 * 1024) }))
      expect([response.statusCode, response.json().code]).toEqual([413, 'payload_too_large'])
    })

    it('a form body', async () => {
      const response = await post('rewards=1', 'application/x-www-form-urlencoded')
      expect(response.statusCode).toBe(415)
      expect(response.json()).toMatchObject({ ok: false, code: 'unsupported_media_type' })
    })

    it('a bad Idempotency-Key', async () => {
      const response = await signedInject(t.app, alice, {
        method: 'POST',
        url: '/api/claim-transactions',
        payload: { rewards: [randomUUID()] },
        headers: { 'idempotency-key': 'has spaces in it' },
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().error).toMatch(/idempotency-key/)
    })
  })

  describe('authentication', () => {
    it('is 401 unsigned, whatever the body', async () => {
      for (const payload of [undefined, '{bad json', '{"rewards":[]}']) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/claim-transactions',
          ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }),
        })
        expect(response.statusCode).toBe(401)
        expect(response.json()).toMatchObject({ ok: false, code: 'unauthorized' })
      }
    })

    it('is 401 with the admin token instead of a signature (a claim is always for its signer)', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/claim-transactions',
        headers: admin,
        payload: { rewards: [randomUUID()] },
      })
      expect(response.statusCode).toBe(401)
    })

    it('is 401 for a signature of another path, and for a replayed signature', async () => {
      const [reward] = await grantMany(t.app, alice.address, 1)
      const wrongPath = await t.app.inject({
        method: 'POST',
        url: '/api/claim-transactions',
        headers: signedHeaders(alice, 'POST', '/api/rewards'),
        payload: { rewards: [reward!.id] },
      })
      expect(wrongPath.statusCode).toBe(401)

      const headers = signedHeaders(alice, 'POST', '/api/claim-transactions')
      const first = await sendCreate(headers, [reward!.id])
      expect(first.statusCode).toBe(201)
      const replay = await sendCreate(headers, [reward!.id])
      expect(replay.statusCode).toBe(401)
      expect(replay.json().data.reason).toBe('replayed')
    })

    it('answers a resent request that carries an Idempotency-Key with the claim it made', async () => {
      const [reward] = await grantMany(t.app, alice.address, 1)
      const headers = {
        ...signedHeaders(alice, 'POST', '/api/claim-transactions', { metadata: { nonce: 'resent' } }),
        'idempotency-key': 'resent-1',
      }
      const create = () => sendCreate(headers, [reward!.id])
      const first = await create()
      const resent = await create()
      expect([first.statusCode, resent.statusCode]).toEqual([201, 201])
      expect(resent.headers['idempotent-replayed']).toBe('true')
      // readable by a page on another origin, where the client reports it as `replayed`
      expect(String(resent.headers['access-control-expose-headers']).split(', ')).toContain(
        'idempotent-replayed',
      )
      expect(resent.json().data).toEqual(first.json().data)
    })

    it('refuses a replay whose rewards are free again, and writes nothing', async () => {
      const [reward] = await grantMany(t.app, alice.address, 1)
      const headers = signedHeaders(alice, 'POST', '/api/claim-transactions', { metadata: { nonce: 'once' } })
      const create = () => sendCreate(headers, [reward!.id])
      const first = await create()
      expect(first.statusCode).toBe(201)
      // the claim expires and fails (admin), so the reward could be claimed again: only by a new request
      await expire(t.db, first.json().data.id)
      const failed = await t.app.inject({
        method: 'PATCH',
        url: `/api/claim-transactions/${first.json().data.id}`,
        headers: admin,
        payload: { status: 'failed' },
      })
      expect(failed.statusCode).toBe(200)
      const replay = await create()
      expect(replay.statusCode).toBe(401)
      expect(replay.json().data.reason).toBe('replayed')
      const [pointer] = await t.db.sql`select claim_transaction_id from rewards where id = ${reward!.id}`
      expect(pointer!.claim_transaction_id).toBe(first.json().data.id)
    })
  })
})

describe('reading claims', () => {
  let bobClaimId: string
  beforeAll(async () => {
    const [reward] = await grantMany(t.app, bob.address, 1)
    bobClaimId = claimOf((await createClaim(t.app, bob, [reward!.id])).body).id
  })

  it('GET one: the owner sees it, anybody else gets 404, the operator sees any', async () => {
    const url = `/api/claim-transactions/${bobClaimId}`
    const own = await signedInject(t.app, bob, { method: 'GET', url })
    expect(own.statusCode).toBe(200)
    expect(own.json().data).toMatchObject({ id: bobClaimId, user: bob.address, status: 'claimed' })

    const other = await signedInject(t.app, alice, { method: 'GET', url })
    expect(other.statusCode).toBe(404)
    expect(other.json()).toMatchObject({ ok: false, code: 'not_found' })

    const missing = await signedInject(t.app, bob, {
      method: 'GET',
      url: `/api/claim-transactions/${randomUUID()}`,
    })
    expect(missing.statusCode).toBe(404)

    const operator = await t.app.inject({ method: 'GET', url, headers: admin })
    expect(operator.statusCode).toBe(200)
  })

  it('GET one: 400 for a non-uuid id, 401 unsigned', async () => {
    const bad = await signedInject(t.app, bob, { method: 'GET', url: '/api/claim-transactions/42' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error).toBe('Invalid path parameter id "42": must match format "uuid"')
    expect(bad.json().data.errors).toEqual([
      { path: 'params.id', message: 'must match format "uuid"', value: '42' },
    ])
    const unsigned = await t.app.inject({ method: 'GET', url: `/api/claim-transactions/${bobClaimId}` })
    expect(unsigned.statusCode).toBe(401)
    const wrongToken = await t.app.inject({
      method: 'GET',
      url: `/api/claim-transactions/${bobClaimId}`,
      headers: { authorization: 'Bearer not-the-token' },
    })
    expect(wrongToken.statusCode).toBe(401)
    expect(wrongToken.json().data.reason).toBe('invalid_token')
  })

  it("GET list: the caller's claims, newest first, paged", async () => {
    const carol = await createIdentity()
    const rewards = await grantMany(t.app, carol.address, 5)
    const created: string[] = []
    for (const reward of rewards)
      created.push(claimOf((await createClaim(t.app, carol, [reward.id])).body).id)

    const page1 = await signedInject(t.app, carol, { method: 'GET', url: '/api/claim-transactions?limit=2' })
    expect(page1.statusCode).toBe(200)
    expect(page1.json().pagination).toEqual({ page: 1, limit: 2, total: 5, pages: 3 })
    expect(page1.json().data.map((c: { id: string }) => c.id)).toEqual([created[4], created[3]])
    const page3 = await signedInject(t.app, carol, {
      method: 'GET',
      url: '/api/claim-transactions?limit=2&page=3',
    })
    expect(page3.json().data.map((c: { id: string }) => c.id)).toEqual([created[0]])

    const bad = await signedInject(t.app, carol, { method: 'GET', url: '/api/claim-transactions?limit=101' })
    expect(bad.statusCode).toBe(400)
    // integers in plain decimal only: page=0x10 is not page 16
    for (const page of ['0x10', '1e1', '%205', '5.0', '%2B5']) {
      const odd = await signedInject(t.app, carol, {
        method: 'GET',
        url: `/api/claim-transactions?page=${page}`,
      })
      expect(odd.statusCode).toBe(400)
      expect(odd.json()).toMatchObject({ ok: false, code: 'bad_request' })
    }

    // somebody else's list is refused; the operator names the user
    const foreign = await signedInject(t.app, alice, {
      method: 'GET',
      url: `/api/claim-transactions?user=${carol.address}`,
    })
    expect(foreign.statusCode).toBe(403)
    // guards subjectOf's own-address comparison (→ `true`, or the query's case kept as sent): naming
    // oneself, in any spelling of the address, is one's own list
    for (const spelling of [
      carol.address,
      carol.wallet.address,
      carol.address.toUpperCase().replace('0X', '0x'),
    ]) {
      const own = await signedInject(t.app, carol, {
        method: 'GET',
        url: `/api/claim-transactions?user=${spelling}`,
      })
      expect(own.statusCode, spelling).toBe(200)
      expect(own.json().pagination.total).toBe(5)
    }
    const operator = await t.app.inject({
      method: 'GET',
      url: `/api/claim-transactions?user=${carol.address}`,
      headers: admin,
    })
    expect(operator.json().pagination.total).toBe(5)
    const operatorWithoutUser = await t.app.inject({
      method: 'GET',
      url: '/api/claim-transactions',
      headers: admin,
    })
    expect(operatorWithoutUser.statusCode).toBe(400)
  })
})
