import { randomUUID } from 'node:crypto'
import { createIdentity, type Identity, requireRealPostgres, signedHeaders } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { insertClaim, insertClaims, type NewClaim } from '../src/db/claim-transactions.js'
import { createBatches } from '../src/domain/create-batches.js'
import { ADMIN_TOKEN, CONTRACT, grantMany, useService } from './helpers.js'

// Concurrent creates share one read and one write statement (createBatches): each must still get what it
// would get alone. Real PostgreSQL, real signatures.
const t = useService()
const PATH = '/api/claim-transactions'

const newClaim = (user: string, rewards: string[], extra: Partial<NewClaim> = {}): NewClaim => ({
  id: randomUUID(),
  user,
  chainId: '137',
  contract: CONTRACT,
  transactionPayload: '0x00',
  transactionPayloadHash: `0x${'0'.repeat(64)}`,
  rewards,
  expiresAt: new Date(Date.now() + 3_600_000),
  usedSignature: {
    signature: `0x${randomUUID().replaceAll('-', '')}`,
    expiresAt: new Date(Date.now() + 60_000),
  },
  ...extra,
})

/** How many transactions wrote these claims (rows of one statement share their xmin). */
async function writers(ids: string[]): Promise<number> {
  const [row] = await t.db.sql<{ n: number }[]>`
    select count(distinct xmin::text)::int as n from claim_transactions where id = any(${ids}::uuid[])`
  return row!.n
}

describe('insertClaims: several creates in one statement, each with its own outcome', () => {
  it('writes the claims that pass, refuses a replay and a foreign reward, records each key of its own', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const [ann, ben] = [await createIdentity(), await createIdentity()]
    const anns = await grantMany(t.app, ann.address, 4)
    const [bens] = await grantMany(t.app, ben.address, 1)
    const usedBefore = newClaim(ann.address, [anns[3]!.id])
    expect((await insertClaim(t.db.sql, usedBefore)).outcome).toBe('inserted')

    const plain = newClaim(ann.address, [anns[0]!.id])
    const replay = newClaim(ann.address, [anns[1]!.id], { usedSignature: usedBefore.usedSignature })
    const foreign = newClaim(ann.address, [anns[2]!.id, bens!.id])
    const keyed = newClaim(ben.address, [bens!.id], { idempotency: { key: 'batched', requestHash: 'h' } })
    const outcomes = await insertClaims(t.db.sql, [plain, replay, foreign, keyed])

    expect(outcomes.map((o) => o.outcome)).toEqual(['inserted', 'replayed', 'no_rewards', 'inserted'])
    const [first, , , last] = outcomes
    expect(first).toMatchObject({
      claim: { id: plain.id, user: ann.address, status: 'claimed', rewards: [anns[0]!.id] },
    })
    expect(last).toMatchObject({ claim: { id: keyed.id, user: ben.address, rewards: [bens!.id] } })
    const pointers = await t.db.sql<{ id: string; claim_transaction_id: string | null }[]>`
      select id, claim_transaction_id from rewards where "user" in (${ann.address}, ${ben.address})`
    const pointerOf = new Map(pointers.map((row) => [row.id, row.claim_transaction_id]))
    expect([anns[0], anns[1], anns[2], bens].map((r) => pointerOf.get(r!.id))).toEqual([
      plain.id,
      null,
      null,
      keyed.id,
    ])
    const keys = await t.db
      .sql`select "user", claim_transaction_id from idempotency_keys where key = 'batched'`
    expect(keys).toEqual([{ user: ben.address, claim_transaction_id: keyed.id }])
    const [claims] = await t.db.sql<{ n: number }[]>`
      select count(*)::int as n from claim_transactions where id in (${replay.id}, ${foreign.id})`
    expect(claims!.n).toBe(0)
    expect(await writers([plain.id, keyed.id])).toBe(1)
  })

  it('fails whole when one claim takes a reward a live claim holds: nothing of any claim is written', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const cid = await createIdentity()
    const rewards = await grantMany(t.app, cid.address, 3)
    expect((await insertClaim(t.db.sql, newClaim(cid.address, [rewards[0]!.id]))).outcome).toBe('inserted')
    const free = newClaim(cid.address, [rewards[1]!.id])
    const taken = newClaim(cid.address, [rewards[2]!.id, rewards[0]!.id])
    await expect(insertClaims(t.db.sql, [free, taken])).rejects.toMatchObject({ code: 'GN001' })
    const [left] = await t.db.sql<{ claims: number; replays: number }[]>`
      select (select count(*)::int from claim_transactions where id in (${free.id}, ${taken.id})) as claims,
        (select count(*)::int from signed_fetch_replays
          where signature in (${free.usedSignature!.signature}, ${taken.usedSignature!.signature})) as replays`
    expect(left).toEqual({ claims: 0, replays: 0 })
  })
})

describe('createBatches: concurrent writes', () => {
  it('a write that fails its batch fails alone: the others of the batch are written one by one', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const dee = await createIdentity()
    const rewards = await grantMany(t.app, dee.address, 21)
    const batches = createBatches(t.db.sql, { maxInFlight: 1 })
    // one claim holds the last reward: a write that asks for it fails its batch
    expect((await insertClaim(t.db.sql, newClaim(dee.address, [rewards[20]!.id]))).outcome).toBe('inserted')
    const claims = rewards
      .slice(0, 20)
      .map((reward, i) => newClaim(dee.address, i === 10 ? [reward.id, rewards[20]!.id] : [reward.id]))
    const outcomes = await Promise.allSettled(claims.map((claim) => batches.write(claim)))
    expect(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value.outcome : (o.reason as { code: string }).code)),
    ).toEqual(claims.map((_, i) => (i === 10 ? 'GN001' : 'inserted')))
    const [pointed] = await t.db.sql<{ n: number }[]>`
      select count(*)::int as n from rewards where "user" = ${dee.address} and claim_transaction_id is not null`
    expect(pointed!.n).toBe(20)
  })

  it('never puts two writes of one reward, one signature or one key in one statement', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const eve = await createIdentity()
    const rewards = await grantMany(t.app, eve.address, 12)
    const batches = createBatches(t.db.sql, { maxInFlight: 1 })
    const signature = {
      signature: `0x${randomUUID().replaceAll('-', '')}`,
      expiresAt: new Date(Date.now() + 60_000),
    }
    const idempotency = { key: 'one-key', requestHash: 'h' }
    const claims = [
      newClaim(eve.address, [rewards[0]!.id]),
      // four that share a signature: one written, three replays
      ...[1, 2, 3, 4].map((i) => newClaim(eve.address, [rewards[i]!.id], { usedSignature: signature })),
      // two that share a key: the second is refused by the key the first recorded (a unique violation)
      newClaim(eve.address, [rewards[5]!.id], { idempotency }),
      newClaim(eve.address, [rewards[6]!.id], { idempotency }),
      // three that share a reward: one written, two refused by the database (the reward is taken)
      ...[7, 7, 7].map((i) => newClaim(eve.address, [rewards[i]!.id])),
    ]
    const outcomes = await Promise.allSettled(claims.map((claim) => batches.write(claim)))
    const summary = outcomes.map((o) =>
      o.status === 'fulfilled' ? o.value.outcome : (o.reason as { code: string }).code,
    )
    expect(summary).toEqual([
      'inserted',
      'inserted',
      'replayed',
      'replayed',
      'replayed',
      'inserted',
      '23505',
      'inserted',
      'GN001',
      'GN001',
    ])
  })
})

describe('POST /api/claim-transactions, concurrently', () => {
  const send = (headers: Record<string, string>, rewards: string[]) =>
    t.app.inject({
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'application/json', ...headers },
      payload: { rewards },
    })
  const signed = (who: Identity) => signedHeaders(who, 'POST', PATH, { metadata: { nonce: randomUUID() } })

  it('one signed request sent ten times at once with ten bodies: one claim, nine replays refused', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const fay = await createIdentity()
    const rewards = await grantMany(t.app, fay.address, 10)
    const headers = signed(fay)
    const answers = await Promise.all(rewards.map((reward) => send(headers, [reward.id])))
    const codes = answers.map((a) =>
      a.statusCode === 201 ? '201' : `${a.statusCode} ${a.json().data?.reason}`,
    )
    expect(codes.filter((c) => c === '201')).toHaveLength(1)
    expect(codes.filter((c) => c === '401 replayed')).toHaveLength(9)
    const [claims] = await t.db.sql<
      { n: number }[]
    >`select count(*)::int as n from claim_transactions where "user" = ${fay.address}`
    expect(claims!.n).toBe(1)
  })

  it('answers each claim as it is stored, alone and batched, byte for byte as GET reads it', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const gus = await createIdentity()
    const rewards = await grantMany(t.app, gus.address, 7)
    const alone = await send(signed(gus), [rewards[0]!.id.toUpperCase(), rewards[1]!.id])
    const together = await Promise.all(rewards.slice(2).map((reward) => send(signed(gus), [reward.id])))
    for (const answer of [alone, ...together]) {
      expect(answer.statusCode, answer.body).toBe(201)
      const id = answer.json().data.id as string
      const url = `${PATH}/${id}`
      const read = await t.app.inject({ method: 'GET', url, headers: signedHeaders(gus, 'GET', url) })
      expect(answer.body).toBe(read.body)
    }
  })

  it('creates, refusals and races at once: each answers what it would alone', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const users = await Promise.all(Array.from({ length: 12 }, () => createIdentity()))
    const owned = await Promise.all(users.map((user) => grantMany(t.app, user.address, 2)))
    const [claimedBefore] = owned[0]!
    expect((await send(signed(users[0]!), [claimedBefore!.id])).statusCode).toBe(201)
    const requests = [
      // a create of each user's second reward
      ...users.map((user, i) => ({ who: user, rewards: [owned[i]![1]!.id], expect: '201' })),
      // another user's reward, a reward in a live claim, an unknown reward
      { who: users[1]!, rewards: [owned[2]![0]!.id], expect: '400 reward_not_found' },
      { who: users[0]!, rewards: [claimedBefore!.id], expect: '400 reward_already_claimed' },
      { who: users[3]!, rewards: [randomUUID()], expect: '400 reward_not_found' },
    ]
    const answers = await Promise.all(requests.map((r) => send(signed(r.who), r.rewards)))
    expect(answers.map((a) => (a.statusCode === 201 ? '201' : `${a.statusCode} ${a.json().code}`))).toEqual(
      requests.map((r) => r.expect),
    )
    const ids = answers.filter((a) => a.statusCode === 201).map((a) => a.json().data.id as string)
    for (const [i, answer] of answers.slice(0, users.length).entries()) {
      expect(answer.json().data).toMatchObject({ user: users[i]!.address, rewards: [owned[i]![1]!.id] })
    }
    // written together: fewer commits than creates
    expect(await writers(ids)).toBeLessThan(ids.length)
  })
})

describe('CLAIMS_CREATE_BATCH_MAX', () => {
  // a replica on the same database that writes each create alone
  let alone: Awaited<ReturnType<typeof buildApp>>
  beforeAll(async () => {
    alone = await buildApp({
      sql: t.db.sql,
      config: loadConfig({
        CLAIMS_SIGNER_PRIVATE_KEY: t.signerWallet.privateKey,
        CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
        CLAIMS_CREATE_BATCH_MAX: '1',
      }),
    })
  })
  afterAll(() => alone?.close())

  it('1 writes each of concurrent creates in a statement of its own; the default shares them', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const hal = await createIdentity()
    const rewards = await grantMany(t.app, hal.address, 16)
    const createAll = async (app: typeof alone, ids: string[]) => {
      const answers = await Promise.all(
        ids.map((id) =>
          app.inject({
            method: 'POST',
            url: PATH,
            headers: {
              'content-type': 'application/json',
              ...signedHeaders(hal, 'POST', PATH, { metadata: { nonce: randomUUID() } }),
            },
            payload: { rewards: [id] },
          }),
        ),
      )
      expect(answers.map((a) => a.statusCode)).toEqual(ids.map(() => 201))
      return answers.map((a) => a.json().data.id as string)
    }
    const ids = rewards.map((reward) => reward.id)
    expect(await writers(await createAll(alone, ids.slice(0, 8)))).toBe(8)
    expect(await writers(await createAll(t.app, ids.slice(8)))).toBeLessThan(8)
  })
})
