import { randomBytes } from 'node:crypto'
import { createIdentity, type Identity, signedInject } from '@genesis/common/testing'
import { describe, expect, it } from 'vitest'
import { sweep } from '../src/jobs/sweeper.js'
import {
  ADMIN_TOKEN,
  admin,
  CONTRACT,
  claimOf,
  createClaim,
  expire,
  grantMany,
  useIdentities,
  useService,
} from './helpers.js'

const t = useService()
const [alice, bob] = useIdentities(2)

const txHash = () => `0x${randomBytes(32).toString('hex')}`

async function newClaim(who: Identity = alice) {
  const [reward] = await grantMany(t.app, who.address, 1)
  return { claim: claimOf((await createClaim(t.app, who, [reward!.id])).body), rewardId: reward!.id }
}

const ownerPatch = (who: Identity, id: string, payload: unknown) =>
  signedInject(t.app, who, {
    method: 'PATCH',
    url: `/api/claim-transactions/${id}`,
    payload: payload as object,
  })
const adminPatch = (id: string, payload: unknown) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/claim-transactions/${id}`,
    headers: admin,
    payload: payload as object,
  })
const read = async (who: Identity, id: string) =>
  (await signedInject(t.app, who, { method: 'GET', url: `/api/claim-transactions/${id}` })).json().data

describe('status lifecycle', () => {
  it('owner reports a transaction hash: claimed → pending; operator settles: → successful', async () => {
    const { claim, rewardId } = await newClaim()
    const hash = txHash()
    const pending = await ownerPatch(alice, claim.id, {
      transaction_hash: hash.toUpperCase().replace('0X', '0x'),
    })
    expect(pending.statusCode).toBe(200)
    expect(pending.json().data).toMatchObject({ id: claim.id, status: 'pending', transaction_hash: hash })
    expect(Date.parse(pending.json().data.updated_at)).toBeGreaterThanOrEqual(Date.parse(claim.updated_at))

    // a retry is harmless; a replacement transaction (sped up in the wallet) updates the hash
    expect((await ownerPatch(alice, claim.id, { transaction_hash: hash })).statusCode).toBe(200)
    const replacement = txHash()
    const replaced = await ownerPatch(alice, claim.id, { transaction_hash: replacement })
    expect(replaced.json().data).toMatchObject({ status: 'pending', transaction_hash: replacement })

    // a pending claim keeps its rewards, even past expires_at
    await expire(t.db, claim.id)
    expect((await read(alice, claim.id)).status).toBe('pending')
    expect((await createClaim(t.app, alice, [rewardId])).body).toMatchObject({
      code: 'reward_already_claimed',
    })

    const done = await adminPatch(claim.id, { status: 'successful' })
    expect(done.statusCode).toBe(200)
    expect(done.json().data).toMatchObject({ status: 'successful', transaction_hash: replacement })
    expect((await createClaim(t.app, alice, [rewardId])).body).toMatchObject({
      code: 'reward_already_claimed',
    })
  })

  it('refuses every move out of successful or failed with 409 invalid_transition', async () => {
    const { claim: won } = await newClaim()
    await adminPatch(won.id, { status: 'successful' })
    const { claim: lost } = await newClaim()
    await expire(t.db, lost.id)
    expect((await adminPatch(lost.id, { status: 'failed' })).statusCode).toBe(200)

    const refusals = [
      await ownerPatch(alice, won.id, { transaction_hash: txHash() }),
      await adminPatch(won.id, { status: 'failed' }),
      await adminPatch(won.id, { status: 'pending', transaction_hash: txHash() }),
      await ownerPatch(alice, lost.id, { transaction_hash: txHash() }),
      await adminPatch(lost.id, { status: 'successful' }),
    ]
    for (const response of refusals) {
      expect(response.statusCode).toBe(409)
      expect(response.json()).toMatchObject({ ok: false, code: 'invalid_transition' })
    }
    expect((await adminPatch(lost.id, { status: 'successful' })).json().data).toEqual({
      from: 'failed',
      to: 'successful',
    })
    // repeating the current final status is a harmless retry
    expect((await adminPatch(won.id, { status: 'successful' })).statusCode).toBe(200)
    // nothing moves back to claimed
    const { claim } = await newClaim()
    await ownerPatch(alice, claim.id, { transaction_hash: txHash() })
    expect((await adminPatch(claim.id, { status: 'claimed' })).statusCode).toBe(409)
  })

  it('a claimed claim past expires_at reads as failed everywhere and frees its rewards', async () => {
    const { claim, rewardId } = await newClaim()
    await expire(t.db, claim.id)

    const one = await read(alice, claim.id)
    expect(one.status).toBe('failed')
    // it failed when it expired
    expect(one.updated_at).toBe(one.expires_at)
    const list = (
      await signedInject(t.app, alice, { method: 'GET', url: '/api/claim-transactions?limit=100' })
    ).json()
    expect(list.data.find((c: { id: string }) => c.id === claim.id).status).toBe('failed')

    // too late to report a hash
    const late = await ownerPatch(alice, claim.id, { transaction_hash: txHash() })
    expect(late.statusCode).toBe(409)
    expect(late.json()).toMatchObject({ code: 'invalid_transition', data: { from: 'failed', to: 'pending' } })
    expect((await adminPatch(claim.id, { status: 'successful' })).statusCode).toBe(409)

    // the reward is free again, before any sweeper ran
    const [stored] = await t.db.sql`select status from claim_transactions where id = ${claim.id}`
    expect(stored!.status).toBe('claimed')
    const again = await createClaim(t.app, alice, [rewardId])
    expect(again.status).toBe(201)

    // the sweeper makes it durable without changing what reads show
    const report = await sweep(t.db.sql)
    expect(report.expired).toBeGreaterThanOrEqual(1)
    const [swept] = await t.db.sql`select status from claim_transactions where id = ${claim.id}`
    expect(swept!.status).toBe('failed')
    expect(await read(alice, claim.id)).toEqual(one)
  })

  it('without an RPC URL the operator fails a claim only once it expired: before, 409 voucher_live', async () => {
    const { claim, rewardId } = await newClaim()
    const early = await adminPatch(claim.id, { status: 'failed' })
    expect(early.statusCode).toBe(409)
    expect(early.json()).toMatchObject({ ok: false, code: 'voucher_live', data: { reason: 'not_expired' } })
    expect((await createClaim(t.app, alice, [rewardId])).body).toMatchObject({
      code: 'reward_already_claimed',
    })
    // a pending claim too: its voucher may still be redeemed
    await ownerPatch(alice, claim.id, { transaction_hash: txHash() })
    expect((await adminPatch(claim.id, { status: 'failed' })).json().code).toBe('voucher_live')
    await t.db
      .sql`update claim_transactions set expires_at = now() - interval '1 second' where id = ${claim.id}`
    const failed = await adminPatch(claim.id, { status: 'failed' })
    expect(failed.json().data.status).toBe('failed')
    expect((await createClaim(t.app, alice, [rewardId])).status).toBe(201)
  })

  // Defect: a reported hash was unique across every claim of its chain, so user A reporting user B's pending
  // hash on A's own claim made B's report answer 409 transaction_hash_in_use for as long as A's claim kept
  // it (on a chain without an RPC URL, until an operator moved it). A report is the reporter's claim's
  // alone: it blocks nobody else's, and it frees nothing (a pending claim holds its rewards).
  it("a hash reported on one user's claim does not block another user's report of it, in any spelling", async () => {
    const { claim: victims, rewardId: victimsReward } = await newClaim(bob)
    const { claim: squatters, rewardId: squattersReward } = await newClaim(alice)
    const hash = txHash()
    expect((await ownerPatch(alice, squatters.id, { transaction_hash: hash })).statusCode).toBe(200)
    for (const spelling of [hash, `0x${hash.slice(2).toUpperCase()}`]) {
      const reported = await ownerPatch(bob, victims.id, { transaction_hash: spelling })
      expect([reported.statusCode, reported.json().data?.transaction_hash], spelling).toEqual([200, hash])
    }
    expect(await read(bob, victims.id)).toMatchObject({ status: 'pending', transaction_hash: hash })
    expect(await read(alice, squatters.id)).toMatchObject({ status: 'pending', transaction_hash: hash })
    // both claims stay live and keep their rewards, past expires_at too
    await expire(t.db, victims.id)
    await expire(t.db, squatters.id)
    for (const [who, reward] of [
      [bob, victimsReward],
      [alice, squattersReward],
    ] as const) {
      expect((await createClaim(t.app, who, [reward])).body).toMatchObject({ code: 'reward_already_claimed' })
    }
  })

  it('one transaction may be reported for two claims of one user (a batch that redeems both)', async () => {
    const hash = txHash()
    const { claim: first } = await newClaim()
    const { claim: second } = await newClaim()
    expect((await ownerPatch(alice, first.id, { transaction_hash: hash })).statusCode).toBe(200)
    const again = await ownerPatch(alice, second.id, { transaction_hash: hash })
    expect([again.statusCode, again.json().data?.status]).toEqual([200, 'pending'])
  })

  it('reports of one hash racing on many claims all land', async () => {
    const hash = txHash()
    const users = await Promise.all(Array.from({ length: 8 }, () => createIdentity()))
    const claims = await Promise.all(users.map((user) => newClaim(user)))
    const answers = await Promise.all(
      claims.map(({ claim }, i) => ownerPatch(users[i]!, claim.id, { transaction_hash: hash })),
    )
    expect(answers.map((answer) => answer.statusCode)).toEqual(users.map(() => 200))
  })

  describe('who may move a claim', () => {
    it("somebody else's claim is 404 (existence does not leak)", async () => {
      const { claim } = await newClaim(bob)
      const response = await ownerPatch(alice, claim.id, { transaction_hash: txHash() })
      expect(response.statusCode).toBe(404)
      expect((await read(bob, claim.id)).status).toBe('claimed')
    })

    it('the owner may not set a status: 403', async () => {
      const { claim } = await newClaim()
      const response = await ownerPatch(alice, claim.id, { status: 'successful' })
      expect(response.statusCode).toBe(403)
      expect(response.json().code).toBe('forbidden')
    })

    it('unauthenticated is 401 whatever the body; a wrong token is 401', async () => {
      const { claim } = await newClaim()
      for (const payload of ['{"transaction_hash":"0x"}', '{broken', '{"status":"failed"}']) {
        const response = await t.app.inject({
          method: 'PATCH',
          url: `/api/claim-transactions/${claim.id}`,
          payload,
          headers: { 'content-type': 'application/json' },
        })
        expect(response.statusCode).toBe(401)
      }
      const wrong = await t.app.inject({
        method: 'PATCH',
        url: `/api/claim-transactions/${claim.id}`,
        headers: { authorization: 'Bearer 0123456789abcdef-wrong' },
        payload: { status: 'failed' },
      })
      expect(wrong.statusCode).toBe(401)
      expect((await read(alice, claim.id)).status).toBe('claimed')
    })

    // Mutation guarded: matchesDigest (routes/caller.ts) reduced to comparing lengths
    // (`expected.length === digest(presented).length`) → any token would be the operator.
    it('a wrong admin token of the right length is 401, on every operator route', async () => {
      const { claim } = await newClaim()
      const sameLength = [
        ADMIN_TOKEN.slice(0, -1) + (ADMIN_TOKEN.endsWith('f') ? 'e' : 'f'),
        'x'.repeat(ADMIN_TOKEN.length),
        ADMIN_TOKEN.toUpperCase(),
      ]
      for (const token of sameLength) {
        expect(token).toHaveLength(ADMIN_TOKEN.length)
        expect(token).not.toBe(ADMIN_TOKEN)
        const headers = { authorization: `Bearer ${token}` }
        const patch = await t.app.inject({
          method: 'PATCH',
          url: `/api/claim-transactions/${claim.id}`,
          headers,
          payload: { status: 'successful' },
        })
        expect(patch.statusCode).toBe(401)
        expect(patch.json()).toMatchObject({
          ok: false,
          code: 'unauthorized',
          data: { reason: 'invalid_token' },
        })
        const granted = await t.app.inject({
          method: 'POST',
          url: '/api/rewards',
          headers,
          payload: { rewards: [{ user: alice.address, chain_id: '137', contract: CONTRACT, item_id: '9' }] },
        })
        expect(granted.statusCode).toBe(401)
        const listed = await t.app.inject({
          method: 'GET',
          url: `/api/rewards?user=${alice.address}`,
          headers,
        })
        expect(listed.statusCode).toBe(401)
      }
      expect((await read(alice, claim.id)).status).toBe('claimed')
    })

    it('404 for an unknown claim, for the operator too', async () => {
      const response = await adminPatch('3f8e2a1c-0000-4000-8000-000000000000', { status: 'failed' })
      expect(response.statusCode).toBe(404)
    })
  })

  describe('bad input: 400', () => {
    const cases: [string, unknown, RegExp][] = [
      ['a bad transaction hash', { transaction_hash: '0x1234' }, /body\.transaction_hash must match pattern/],
      [
        'a hash without 0x',
        { transaction_hash: 'ab'.repeat(32) },
        /body\.transaction_hash must match pattern/,
      ],
      ['an unknown status', { status: 'done' }, /body\.status must be equal to one of the allowed values/],
      [
        'an unknown field',
        { transaction_hash: `0x${'ab'.repeat(32)}`, note: 'x' },
        /body\.note is not an accepted field/,
      ],
      ['an empty object', {}, /body must NOT have fewer than 1 properties/],
      ['pending without a hash (operator)', { status: 'pending' }, /needs its transaction_hash/],
    ]
    it.each(cases)('%s', async (_name, payload, message) => {
      const { claim } = await newClaim()
      const response =
        'status' in (payload as object)
          ? await adminPatch(claim.id, payload)
          : await ownerPatch(alice, claim.id, payload)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ ok: false, code: 'bad_request' })
      expect(response.json().error).toMatch(message)
    })

    it('a body larger than a report can hold: 413', async () => {
      const { claim } = await newClaim()
      const padded = { transaction_hash: txHash(), note: 'x'.repeat(1024) }
      for (const response of [
        await ownerPatch(alice, claim.id, padded),
        await adminPatch(claim.id, padded),
      ]) {
        expect([response.statusCode, response.json().code]).toEqual([413, 'payload_too_large'])
      }
    })
  })
})
