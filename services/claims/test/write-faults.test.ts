import { randomUUID } from 'node:crypto'
import { type App, createSql, type Sql } from '@genesis/common'
import {
  createIdentity,
  type Identity,
  lockWaiters,
  requireRealPostgres,
  signedInject,
} from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { ADMIN_TOKEN, grantMany, useService } from './helpers.js'

// Faults injected into the real PostgreSQL at the create's write: a lock held past the statement timeout,
// and a trigger that fails every write as a lost race does. One database for the file; each test cleans up.
const t = useService()
/** The service again, on a pool whose statements PostgreSQL cuts after STATEMENT_TIMEOUT_MS. */
let cut: { app: App; sql: Sql }

const STATEMENT_TIMEOUT_MS = 500
/** The create's rounds of read-check-write before it gives up (MAX_ROUNDS in create-claim.ts). */
const MAX_ROUNDS = 3

beforeAll(async () => {
  const sql = createSql(t.db.url, {
    max: 4,
    settings: { ...CLAIMS_DB_SETTINGS, statement_timeout: String(STATEMENT_TIMEOUT_MS) },
  })
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
    CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
  })
  cut = { app: await buildApp({ sql, config }), sql }
})
afterAll(async () => {
  await cut?.app.close()
  await cut?.sql.end({ timeout: 5 })
})

const create = (app: App, who: Identity, rewards: string[], headers: Record<string, string> = {}) =>
  signedInject(app, who, {
    method: 'POST',
    url: '/api/claim-transactions',
    payload: { rewards },
    headers,
    metadata: { nonce: randomUUID() },
  })

/** What a user's failed create may have left: claims, pointed rewards, keys, recorded signatures. */
async function leftBehind(user: string, key: string) {
  const [row] = await t.db.sql<{ claims: number; pointed: number; keys: number; replays: number }[]>`
    select
      (select count(*)::int from claim_transactions where "user" = ${user}) as claims,
      (select count(*)::int from rewards where "user" = ${user} and claim_transaction_id is not null) as pointed,
      (select count(*)::int from idempotency_keys where key = ${key}) as keys,
      (select count(*)::int from signed_fetch_replays) as replays`
  return row!
}

describe('a write held past the statement timeout', () => {
  // guards: `state === LIVE_CLAIM_GUARD || state === HALF_WRITTEN || state === DEADLOCK` → `true` in
  // create(): the cut statement (57014) would be taken for a lost race, tried MAX_ROUNDS times and
  // answered 409 instead of 503
  it('is 503 service_unavailable at once, writes nothing, and the reward stays claimable', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const olga = await createIdentity()
    const [reward] = await grantMany(t.app, olga.address, 1)
    const key = randomUUID()
    const before = await leftBehind(olga.address, key)
    let answer: Awaited<ReturnType<typeof create>> | undefined
    let waits = 0
    await t.db.sql.begin(async (tx) => {
      // the checks only read this table; the write's first step records the request's signature in it
      await tx`lock table signed_fetch_replays in exclusive mode`
      const sent = create(cut.app, olga, [reward!.id], { 'idempotency-key': key })
      await lockWaiters(t.db.sql, 1)
      answer = await sent
      const [row] = await tx<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`
      waits = row!.n
    })
    expect(answer!.statusCode, answer!.body).toBe(503)
    expect(answer!.json()).toMatchObject({ ok: false, code: 'service_unavailable' })
    expect(answer!.headers['retry-after']).toBeDefined()
    // the statement was cut in the server: nothing of it still waits, nothing was written
    expect(waits).toBe(0)
    expect(await leftBehind(olga.address, key)).toEqual(before)

    const retried = await create(t.app, olga, [reward!.id], { 'idempotency-key': key })
    expect(retried.statusCode, retried.body).toBe(201)
    expect(retried.json()).toMatchObject({ ok: true, data: { rewards: [reward!.id] } })
  })
})

describe('a write that loses the race every round', () => {
  // guards: `round++` → `round--` and `if (round === MAX_ROUNDS)` → `if (false)` in createAfterRaces():
  // either way the rounds never end (bounded here, so that the test fails instead of hanging)
  it(`gives up after ${MAX_ROUNDS} rounds with 409, having written nothing`, async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const pavel = await createIdentity()
    const [reward] = await grantMany(t.app, pavel.address, 1)
    const key = randomUUID()
    const before = await leftBehind(pavel.address, key)
    const suffix = randomUUID().replaceAll('-', '')
    const attempts = `write_attempts_${suffix}`
    const fail = `lose_race_${suffix}`
    // A sequence counts the writes: nextval survives the rollback of the statement that called it.
    // The trigger fails only this user's claims, with the rewards trigger's state for a reward taken under
    // the write, while the checks still see the reward free.
    await t.db.sql.unsafe(`
      create sequence ${attempts};
      create function ${fail}() returns trigger language plpgsql as $$
      begin
        perform nextval('${attempts}');
        raise exception 'reward taken under the write (injected)' using errcode = 'GN001';
      end $$;
      create trigger ${fail} before insert on claim_transactions for each row
        when (new."user" = '${pavel.address}') execute function ${fail}();`)
    let answer: Awaited<ReturnType<typeof create>> | undefined
    let rounds = 0
    try {
      const sent = create(t.app, pavel, [reward!.id], { 'idempotency-key': key })
      let timer: NodeJS.Timeout | undefined
      const bound = new Promise<'unbounded'>((resolve) => {
        timer = setTimeout(() => resolve('unbounded'), 10_000)
      })
      const ended = await Promise.race([sent, bound])
      clearTimeout(timer)
      const [row] = await t.db.sql.unsafe<{ n: number }[]>(
        `select case when is_called then last_value else 0 end::int as n from ${attempts}`,
      )
      rounds = row!.n
      expect(ended, `the create was still going after ${rounds} writes`).not.toBe('unbounded')
      answer = ended as Awaited<ReturnType<typeof create>>
    } finally {
      // without the trigger a runaway create's next write succeeds, so it ends too
      await t.db.sql.unsafe(`drop trigger ${fail} on claim_transactions; drop function ${fail}();`)
    }
    expect(rounds).toBe(MAX_ROUNDS)
    expect(answer!.statusCode, answer!.body).toBe(409)
    expect(answer!.json()).toMatchObject({
      ok: false,
      code: 'conflict',
      error: 'The rewards changed while the claim was made; retry',
    })
    expect(await leftBehind(pavel.address, key)).toEqual(before)
    await t.db.sql.unsafe(`drop sequence ${attempts}`)

    const retried = await create(t.app, pavel, [reward!.id], { 'idempotency-key': key })
    expect(retried.statusCode, retried.body).toBe(201)
  })
})

describe('a write chosen as a deadlock victim', () => {
  // guards: `state === DEADLOCK` → `false` or `!==` in create(), and the static DEADLOCK = '40P01' → "":
  // the write's locks make a real deadlock unlikely, so PostgreSQL's 40P01 is raised here, once
  it('is written in the next round: 201, one claim', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const quinn = await createIdentity()
    const [reward] = await grantMany(t.app, quinn.address, 1)
    const suffix = randomUUID().replaceAll('-', '')
    const attempts = `write_attempts_${suffix}`
    const fail = `deadlock_once_${suffix}`
    await t.db.sql.unsafe(`
      create sequence ${attempts};
      create function ${fail}() returns trigger language plpgsql as $$
      begin
        if nextval('${attempts}') = 1 then
          raise exception 'deadlock detected (injected)' using errcode = '40P01';
        end if;
        return new;
      end $$;
      create trigger ${fail} before insert on claim_transactions for each row
        when (new."user" = '${quinn.address}') execute function ${fail}();`)
    let answer: Awaited<ReturnType<typeof create>> | undefined
    let writes = 0
    try {
      answer = await create(t.app, quinn, [reward!.id])
      const [row] = await t.db.sql.unsafe<{ n: number }[]>(`select last_value::int as n from ${attempts}`)
      writes = row!.n
    } finally {
      await t.db.sql.unsafe(
        `drop trigger ${fail} on claim_transactions; drop function ${fail}(); drop sequence ${attempts};`,
      )
    }
    expect(answer!.statusCode, answer!.body).toBe(201)
    expect(writes).toBe(2)
    const claim = answer!.json() as { data: { id: string } }
    const stored = await t.db.sql`select claim_transaction_id from rewards where id = ${reward!.id}`
    expect(stored).toEqual([{ claim_transaction_id: claim.data.id }])
  })
})
