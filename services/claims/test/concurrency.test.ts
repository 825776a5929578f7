import { randomUUID } from 'node:crypto'
import {
  createIdentity,
  type Identity,
  requireRealPostgres,
  signedHeaders,
  lockWaiters as waitForLockWaiters,
} from '@genesis/common/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { insertClaim } from '../src/db/claim-transactions.js'
import { CONTRACT, grant, grantMany, useService } from './helpers.js'

const t = useService()
let baseUrl: string

beforeAll(async () => {
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
})

interface Answer {
  status: number
  body: { ok: boolean; code?: string; data?: { id?: string } & Record<string, unknown> }
  headers: Headers
}

/**
 * A real HTTP create, signed just before sending. Signatures are deterministic, so two requests signed in
 * the same millisecond would be one signature, the second refused as a replay: a nonce in the metadata
 * keeps concurrent requests distinct, as a client firing them in parallel must do.
 */
async function post(who: Identity, rewards: string[], headers: Record<string, string> = {}): Promise<Answer> {
  const path = '/api/claim-transactions'
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signedHeaders(who, 'POST', path, { metadata: { nonce: randomUUID() } }),
      ...headers,
    },
    body: JSON.stringify({ rewards }),
  })
  return {
    status: response.status,
    body: (await response.json()) as Answer['body'],
    headers: response.headers,
  }
}

const counts = (answers: Answer[]) => {
  const byStatus: Record<string, number> = {}
  for (const a of answers)
    byStatus[`${a.status} ${a.body.code ?? ''}`.trim()] =
      (byStatus[`${a.status} ${a.body.code ?? ''}`.trim()] ?? 0) + 1
  return byStatus
}

describe('concurrent creates against the real PostgreSQL', () => {
  it('30 concurrent creates for one reward: exactly one 201, 29 × 400 reward_already_claimed', async () => {
    const alice = await createIdentity()
    const [reward] = await grantMany(t.app, alice.address, 1)
    const answers = await Promise.all(Array.from({ length: 30 }, () => post(alice, [reward!.id])))
    expect(counts(answers)).toEqual({ '201': 1, '400 reward_already_claimed': 29 })

    const rows = await t.db.sql`select id from claim_transactions where ${reward!.id}::uuid = any(rewards)`
    expect(rows).toHaveLength(1)
    const winner = answers.find((a) => a.status === 201)!
    expect(rows[0]!.id).toBe(winner.body.data!.id)
    const [stored] = await t.db.sql`select claim_transaction_id from rewards where id = ${reward!.id}`
    expect(stored!.claim_transaction_id).toBe(winner.body.data!.id)
  })

  it('30 concurrent creates for 30 different rewards of one user: 30 × 201', async () => {
    const bob = await createIdentity()
    const rewards = await grantMany(t.app, bob.address, 30)
    const answers = await Promise.all(rewards.map((reward) => post(bob, [reward.id])))
    expect(counts(answers)).toEqual({ '201': 30 })
    const [row] = await t.db
      .sql`select count(*)::int as n from claim_transactions where "user" = ${bob.address}`
    expect(row!.n).toBe(30)
  })

  it('overlapping sets in opposite orders never deadlock: each reward ends in exactly one claim', async () => {
    const carol = await createIdentity()
    const rewards = await grantMany(t.app, carol.address, 6)
    const ids = rewards.map((r) => r.id)
    const sets = Array.from({ length: 20 }, (_, i) => {
      const slice = [ids[i % 6]!, ids[(i + 1) % 6]!, ids[(i + 3) % 6]!]
      return i % 2 === 0 ? slice : slice.reverse()
    })
    const answers = await Promise.all(sets.map((set) => post(carol, set)))
    for (const a of answers) expect([201, 400]).toContain(a.status)
    const taken = await t.db.sql<{ reward: string; claims: number }[]>`
      select reward, count(*)::int as claims
      from claim_transactions, unnest(rewards) as reward
      where "user" = ${carol.address} group by reward`
    for (const row of taken) expect(row.claims).toBe(1)
    expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(1)
  })
})

describe('a create that loses a race answers like a sequential one', () => {
  it('20 parallel creates over overlapping rewards: 201 or 400 reward_already_claimed listing taken rewards, never 409', async () => {
    for (let round = 0; round < 3; round++) {
      const kim = await createIdentity()
      const ids = (await grantMany(t.app, kim.address, 8)).map((r) => r.id)
      const sets = Array.from({ length: 20 }, (_, i) => {
        const slice = [ids[i % 8]!, ids[(i + 1) % 8]!, ids[(i + 2) % 8]!, ids[(i + 5) % 8]!]
        return i % 2 === 0 ? slice : slice.reverse()
      })
      const answers = await Promise.all(sets.map((set) => post(kim, set)))
      const claimOf = new Map<string, string>()
      for (const row of await t.db.sql<{ reward: string; id: string }[]>`
        select reward::text, id::text from claim_transactions, unnest(rewards) as reward
        where "user" = ${kim.address}`) {
        expect(claimOf.has(row.reward)).toBe(false)
        claimOf.set(row.reward, row.id)
      }
      answers.forEach((answer, i) => {
        if (answer.status === 201) return
        expect(`${answer.status} ${answer.body.code}`, JSON.stringify(answer.body)).toBe(
          '400 reward_already_claimed',
        )
        const listed = answer.body.data?.rewards as string[] | undefined
        expect(listed, JSON.stringify(answer.body)).toBeDefined()
        expect(listed!.length).toBeGreaterThan(0)
        for (const reward of listed!) {
          expect(sets[i]).toContain(reward)
          expect(claimOf.has(reward)).toBe(true)
        }
      })
      expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(1)
    }
  })
})

describe('Idempotency-Key', () => {
  it('a retry with the same key and body answers 201 with the same claim; another body is 409', async () => {
    const dave = await createIdentity()
    const [a, b] = await grantMany(t.app, dave.address, 2)
    const key = randomUUID()
    const first = await post(dave, [a!.id], { 'idempotency-key': key })
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()

    const retry = await post(dave, [a!.id], { 'idempotency-key': key })
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(retry.body).toEqual(first.body)

    const other = await post(dave, [b!.id], { 'idempotency-key': key })
    expect(other.status).toBe(409)
    expect(other.body).toMatchObject({ ok: false, code: 'idempotency_key_reused' })

    // keys are per user: another user may use the same key
    const erin = await createIdentity()
    const [e] = await grantMany(t.app, erin.address, 1)
    expect((await post(erin, [e!.id], { 'idempotency-key': key })).status).toBe(201)
  })

  it('10 concurrent retries with one key create one claim and all answer it', async () => {
    const frank = await createIdentity()
    const [reward] = await grantMany(t.app, frank.address, 1)
    const key = randomUUID()
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(frank, [reward!.id], { 'idempotency-key': key })),
    )
    expect(counts(answers)).toEqual({ '201': 10 })
    expect(new Set(answers.map((a) => a.body.data!.id)).size).toBe(1)
    const [row] = await t.db
      .sql`select count(*)::int as n from claim_transactions where "user" = ${frank.address}`
    expect(row!.n).toBe(1)
  })

  it('a failed create does not keep the key: the retry runs again', async () => {
    const gina = await createIdentity()
    const key = randomUUID()
    const missing = randomUUID()
    expect((await post(gina, [missing], { 'idempotency-key': key })).body.code).toBe('reward_not_found')
    await grant(t.app, gina.address, [{ id: missing }])
    expect((await post(gina, [missing], { 'idempotency-key': key })).status).toBe(201)
  })
})

const lockWaiters = (n: number) => waitForLockWaiters(t.db.sql, n)

/**
 * Sends the requests so that every one passes its checks before any of them writes: a transaction holds
 * the replay table (the write's first step records the request's signature there; the checks only read)
 * and lets go once every write waits for it.
 */
async function racingAtTheWrite(requests: Array<() => Promise<Answer>>): Promise<Answer[]> {
  let answers: Promise<Answer[]> | undefined
  await t.db.sql.begin(async (tx) => {
    await tx`lock table signed_fetch_replays in exclusive mode`
    answers = Promise.all(requests.map((send) => send()))
    await lockWaiters(requests.length)
  })
  return answers!
}

describe('a create that loses the race at its write answers like a sequential one', () => {
  // guards `state === UNIQUE_VIOLATION && idempotency` in create(): → `false` or `!==` lets the key's
  // unique violation out as a 500
  it('one Idempotency-Key, two bodies: 201 and 409 idempotency_key_reused, never a 500', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const lily = await createIdentity()
    const [a, b] = await grantMany(t.app, lily.address, 2)
    const key = randomUUID()
    const answers = await racingAtTheWrite([
      () => post(lily, [a!.id], { 'idempotency-key': key }),
      () => post(lily, [b!.id], { 'idempotency-key': key }),
    ])
    expect(counts(answers)).toEqual({ '201': 1, '409 idempotency_key_reused': 1 })
    const [claims] = await t.db
      .sql`select count(*)::int as n from claim_transactions where "user" = ${lily.address}`
    expect(claims!.n).toBe(1)
  })

  // guards the same line the other way: → `true` or `||` sends a reward taken under the write (GN001) to
  // the Idempotency-Key lookup, which finds nothing under the loser's own key and lets the error out as a 500
  it('one reward, two keys: 201 and 400 reward_already_claimed naming it', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const mia = await createIdentity()
    const [reward] = await grantMany(t.app, mia.address, 1)
    const answers = await racingAtTheWrite([
      () => post(mia, [reward!.id], { 'idempotency-key': randomUUID() }),
      () => post(mia, [reward!.id], { 'idempotency-key': randomUUID() }),
    ])
    expect(counts(answers)).toEqual({ '201': 1, '400 reward_already_claimed': 1 })
    expect(answers.find((a) => a.status === 400)!.body).toMatchObject({ data: { rewards: [reward!.id] } })
  })

  // guards `state === HALF_WRITTEN` in create(): → `false` or `!==` lets GN003 out as a 500 instead of
  // checking again, which finds the reward gone
  it('a reward deleted under the write: the create checks again and answers reward_not_found', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const nina = await createIdentity()
    const [kept, doomed] = await grantMany(t.app, nina.address, 2)
    let answer: Promise<Answer> | undefined
    await t.db.sql.begin(async (tx) => {
      // uncommitted: the create's checks still see the reward, its write then waits for this row
      await tx`delete from rewards where id = ${doomed!.id}`
      answer = post(nina, [kept!.id, doomed!.id])
      await lockWaiters(1)
    })
    const { status, body } = await answer!
    expect([status, body.code]).toEqual([400, 'reward_not_found'])
    expect(body).toMatchObject({ data: { rewards: [doomed!.id] } })
    const [claims] = await t.db
      .sql`select count(*)::int as n from claim_transactions where "user" = ${nina.address}`
    expect(claims!.n).toBe(0)
  })
})

describe('integrity', () => {
  it('a refused create leaves nothing behind', async () => {
    const hank = await createIdentity()
    const rewards = await grant(t.app, hank.address, [
      { contract: CONTRACT },
      { contract: '0x3333333333333333333333333333333333333333' },
    ])
    const answer = await post(
      hank,
      rewards.map((r) => r.id),
      { 'idempotency-key': 'mixed' },
    )
    expect(answer.status).toBe(400)
    expect(answer.body.code).toBe('mixed_rewards')

    const [claims] = await t.db
      .sql`select count(*)::int as n from claim_transactions where "user" = ${hank.address}`
    const [keys] = await t.db
      .sql`select count(*)::int as n from idempotency_keys where "user" = ${hank.address}`
    const [pointed] = await t.db.sql`
      select count(*)::int as n from rewards where "user" = ${hank.address} and claim_transaction_id is not null`
    expect([claims!.n, keys!.n, pointed!.n]).toEqual([0, 0, 0])
    expect((await post(hank, [rewards[0]!.id])).status).toBe(201)
  })

  it('a write that fails half-way (a reward taken after the read) leaves nothing behind', async () => {
    const hugo = await createIdentity()
    const [free, taken] = await grantMany(t.app, hugo.address, 2)
    // `taken` goes into a live claim after the create has read both rewards as free
    expect((await post(hugo, [taken!.id])).status).toBe(201)
    const id = randomUUID()
    const write = insertClaim(t.db.sql, {
      id,
      user: hugo.address,
      chainId: '137',
      contract: CONTRACT,
      transactionPayload: '0x00',
      transactionPayloadHash: `0x${'0'.repeat(64)}`,
      rewards: [free!.id, taken!.id].sort().reverse(),
      expiresAt: new Date(Date.now() + 3_600_000),
      idempotency: { key: 'half-way', requestHash: 'x' },
    })
    await expect(write).rejects.toMatchObject({ code: 'GN001' })

    const [claim] = await t.db.sql`select count(*)::int as n from claim_transactions where id = ${id}`
    const [key] = await t.db.sql`select count(*)::int as n from idempotency_keys where key = 'half-way'`
    const [reward] = await t.db.sql`select claim_transaction_id from rewards where id = ${free!.id}`
    expect([claim!.n, key!.n, reward!.claim_transaction_id]).toEqual([0, 0, null])
  })

  it('a write whose rewards are not all the caller’s writes nothing', async () => {
    const iris = await createIdentity()
    const jack = await createIdentity()
    const [mine] = await grantMany(t.app, iris.address, 1)
    const [theirs] = await grantMany(t.app, jack.address, 1)
    const write = (rewards: string[]) =>
      insertClaim(t.db.sql, {
        id: randomUUID(),
        user: iris.address,
        chainId: '137',
        contract: CONTRACT,
        transactionPayload: '0x00',
        transactionPayloadHash: `0x${'0'.repeat(64)}`,
        rewards,
        expiresAt: new Date(Date.now() + 3_600_000),
      })
    expect(await write([mine!.id, randomUUID()])).toEqual({ outcome: 'no_rewards' })
    expect(await write([mine!.id, theirs!.id])).toEqual({ outcome: 'no_rewards' })
    expect(await write([randomUUID()])).toEqual({ outcome: 'no_rewards' })
    const [claims] = await t.db
      .sql`select count(*)::int as n from claim_transactions where "user" = ${iris.address}`
    const pointed = await t.db.sql`
      select id from rewards where id in (${mine!.id}, ${theirs!.id}) and claim_transaction_id is not null`
    expect([claims!.n, pointed.length]).toEqual([0, 0])
  })

  it('a write whose reward vanishes after its check aborts whole (GN003)', async (ctx) => {
    requireRealPostgres(ctx, t.db) // a second connection holds the delete open while the write runs
    const lena = await createIdentity()
    const [kept, doomed] = await grantMany(t.app, lena.address, 2)
    const id = randomUUID()
    let written: Promise<unknown> | undefined
    await t.db.sql.begin(async (tx) => {
      // uncommitted: the write's snapshot still sees `doomed` as Lena's, its update then waits for this lock
      await tx`delete from rewards where id = ${doomed!.id}`
      written = insertClaim(t.db.sql, {
        id,
        user: lena.address,
        chainId: '137',
        contract: CONTRACT,
        transactionPayload: '0x00',
        transactionPayloadHash: `0x${'0'.repeat(64)}`,
        rewards: [kept!.id, doomed!.id],
        expiresAt: new Date(Date.now() + 3_600_000),
        idempotency: { key: 'vanished', requestHash: 'x' },
      }).catch((error: unknown) => error)
      // commit only once the write is blocked on the deleted row
      await lockWaiters(1)
    })
    expect(await written).toMatchObject({ code: 'GN003' })
    const [claim] = await t.db.sql`select count(*)::int as n from claim_transactions where id = ${id}`
    const [key] = await t.db.sql`select count(*)::int as n from idempotency_keys where key = 'vanished'`
    const [reward] = await t.db.sql`select claim_transaction_id from rewards where id = ${kept!.id}`
    expect([claim!.n, key!.n, reward!.claim_transaction_id]).toEqual([0, 0, null])
  })

  it('a write with a signature used before writes nothing', async () => {
    const kate = await createIdentity()
    const rewards = await grantMany(t.app, kate.address, 2)
    const used = {
      signature: `0x${randomUUID().replaceAll('-', '')}`,
      expiresAt: new Date(Date.now() + 60_000),
    }
    const write = (reward: string) =>
      insertClaim(t.db.sql, {
        id: randomUUID(),
        user: kate.address,
        chainId: '137',
        contract: CONTRACT,
        transactionPayload: '0x00',
        transactionPayloadHash: `0x${'0'.repeat(64)}`,
        rewards: [reward],
        expiresAt: new Date(Date.now() + 3_600_000),
        idempotency: { key: 'replayed-write', requestHash: 'x' },
        usedSignature: used,
      })
    expect((await write(rewards[0]!.id)).outcome).toBe('inserted')
    expect(await write(rewards[1]!.id)).toEqual({ outcome: 'replayed' })
    const [claims] = await t.db
      .sql`select count(*)::int as n from claim_transactions where "user" = ${kate.address}`
    const [second] = await t.db.sql`select claim_transaction_id from rewards where id = ${rewards[1]!.id}`
    const [recorded] = await t.db
      .sql`select count(*)::int as n from signed_fetch_replays where signature = ${used.signature}`
    expect([claims!.n, second!.claim_transaction_id, recorded!.n]).toEqual([1, null, 1])
  })

  it('the database itself refuses to move a reward out of a live claim', async () => {
    const ivan = await createIdentity()
    const [reward] = await grantMany(t.app, ivan.address, 1)
    const created = await post(ivan, [reward!.id])
    expect(created.status).toBe(201)
    const claimId = String(created.body.data!.id)
    const stolen = randomUUID()
    const attempt = t.db.sql.begin(async (tx) => {
      await tx`
        insert into claim_transactions
          (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash, rewards, expires_at)
        values (${stolen}, ${ivan.address}, '137', ${CONTRACT}, '0x00', ${`0x${'0'.repeat(64)}`},
          ${[reward!.id]}::uuid[], now() + interval '1 hour')`
      await tx`update rewards set claim_transaction_id = ${stolen} where id = ${reward!.id}`
    })
    await expect(attempt).rejects.toMatchObject({ code: 'GN001' })
    const [stored] = await t.db.sql`select claim_transaction_id from rewards where id = ${reward!.id}`
    expect(stored!.claim_transaction_id).toBe(claimId)

    // and refuses to bring a settled claim back
    await t.db.sql`update claim_transactions set status = 'failed' where id = ${claimId}`
    await expect(
      t.db.sql`update claim_transactions set status = 'claimed' where id = ${claimId}`,
    ).rejects.toMatchObject({ code: 'GN002' })
  })
})
