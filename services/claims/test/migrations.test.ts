import { cpSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, type Queryable } from '@genesis/common'
import { createTestDatabase, requireRealPostgres, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedClaims } from '../bench/scale/seed.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'

// Migrations that change a big table's indexes run online (online.sql: create index concurrently): a
// database already holding claims takes its writes while the index is built.
let db: TestDatabase

beforeAll(async () => {
  db = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
})
afterAll(async () => {
  await db?.drop()
})

/** The service's migrations up to `last` (a deployment before the newer ones). */
function migrationsUpTo(last: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'claims-migrations-'))
  for (const entry of readdirSync(migrationsDir)) {
    if (Number.parseInt(entry.slice(0, 5), 10) <= last)
      cpSync(join(migrationsDir, entry), join(dir, entry), { recursive: true })
  }
  return dir
}

const newClaim = (sql: TestDatabase['sql'], n: number) => sql`
  insert into claim_transactions (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
    rewards, expires_at)
  values (md5(${`online-${n}`})::uuid, ${`0x${'9'.repeat(40)}`}, '137', ${`0x${'1'.repeat(40)}`}, '0xab',
    ${`0x${'c'.repeat(64)}`}, array[gen_random_uuid()], now() + interval '1 hour')`

describe('00006 (the jobs’ indexes) on a populated database', () => {
  it('is built while claims keep being written, and the jobs’ plans use it', async (ctx) => {
    requireRealPostgres(ctx, db)
    await migrate(db.sql, migrationsUpTo(5))
    await seedClaims(db.sql, {
      owners: 5_000,
      rewards: 50_000,
      claims: 10_000,
      live: 1_000,
      idempotencyKeys: 1_000,
      replays: 100,
    })
    // a create under way: the index build waits for it to end, and meanwhile the table must take writes
    const holder = await db.sql.reserve()
    const writer = await db.sql.reserve()
    let migrating: Promise<void> | undefined
    try {
      await holder`begin`
      await newClaim(holder, 1)
      migrating = migrate(db.sql, migrationsDir)
      for (let waited = 0; ; waited++) {
        const [row] = await db.sql<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and query ilike 'create index concurrently%' and wait_event_type = 'Lock'`
        if (row!.n > 0) break
        if (waited > 500) throw new Error('the index build never waited for the open transaction')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      // a write that a lock of the build would hold back fails here instead of waiting
      await writer`set lock_timeout = '2s'`
      await newClaim(writer, 2)
      await writer`update claim_transactions set status = 'pending', transaction_hash = ${`0x${'d'.repeat(64)}`}
                   where id = md5('online-2')::uuid`
      await holder`commit`
    } finally {
      await holder`rollback`.catch(() => {})
      holder.release()
      writer.release()
    }
    await migrating
    const indexes = await db.sql<{ name: string; valid: boolean }[]>`
      select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'claim_transactions'::regclass order by 1`
    expect(indexes).toEqual(
      expect.arrayContaining([
        { name: 'claim_transactions_unwatched', valid: true },
        { name: 'claim_transactions_watched_expiry', valid: true },
      ]),
    )
    expect(indexes.map((index) => index.name)).not.toContain('claim_transactions_claimed_expiry')
    expect(indexes.every((index) => index.valid)).toBe(true)
    const [applied] = await db.sql<{ n: number }[]>`select max(migration_id)::int as n from migrations`
    expect(applied!.n).toBeGreaterThanOrEqual(6)
    await db.sql`analyze claim_transactions`
    const plan = await db.sql<{ 'QUERY PLAN': string }[]>`
      explain select id from claim_transactions
      where chain_id = '137' and not watched and status = 'claimed' and expires_at <= now()
      order by expires_at limit 1000`
    expect(plan.map((line) => line['QUERY PLAN']).join('\n')).toContain('claim_transactions_unwatched')
  }, 120_000)
})

describe('00007/00008 (user totals) on a populated database', () => {
  it('counts every user’s rewards and claims while grants and claims go on, each exactly once', async (ctx) => {
    const populated = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
    try {
      requireRealPostgres(ctx, populated)
      await migrate(populated.sql, migrationsUpTo(6))
      await seedClaims(populated.sql, {
        owners: 3_000,
        rewards: 30_000,
        claims: 3_000,
        live: 300,
        idempotencyKeys: 100,
        replays: 10,
      })
      // grants to existing users and to new ones, for as long as the backfill runs
      let migrated = false
      const granting = (async () => {
        let round = 0
        while (!migrated || round < 3) {
          round++
          await populated.sql`
            insert into rewards (id, "user", chain_id, contract, item_id)
            select gen_random_uuid(), case when n % 2 = 0 then '0x' || lpad(to_hex((n * 37 + ${round}) % 3000), 40, '0')
                                           else '0x' || lpad(to_hex(1000000 + ${round} * 100 + n), 40, '0') end,
              '137', ${`0x${'1'.repeat(40)}`}, n
            from generate_series(1, 20) as n`
          // a claim of an existing user, as a create writes it (one row a statement)
          await populated.sql`
            insert into claim_transactions (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
              rewards, expires_at)
            values (gen_random_uuid(), ${`0x${((round * 53) % 3000).toString(16).padStart(40, '0')}`}, '137',
              ${`0x${'1'.repeat(40)}`}, '0xab', ${`0x${'c'.repeat(64)}`}, array[gen_random_uuid()], now() + interval '1 hour')`
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
        return round
      })()
      await migrate(populated.sql, migrationsDir)
      migrated = true
      expect(await granting).toBeGreaterThanOrEqual(3)
      const [state] = await populated.sql<{ complete: boolean }[]>`select complete from user_totals_backfill`
      expect(state!.complete).toBe(true)
      const [wrong] = await populated.sql<{ n: number; users: number }[]>`
        select count(*) filter (where t."user" is null or not t.counted or t.rewards <> r.n
                                      or t.claims <> coalesce(c.n, 0))::int as n, count(*)::int as users
        from (select "user", count(*) as n from rewards group by "user") as r
        left join (select "user", count(*) as n from claim_transactions group by "user") as c on c."user" = r."user"
        left join user_totals t on t."user" = r."user"`
      expect(wrong).toEqual({ n: 0, users: expect.any(Number) })
      expect(wrong!.users).toBeGreaterThan(3_000)
    } finally {
      await populated.drop()
    }
  }, 180_000)
})

describe('00010 (room on claims’ pages) on a populated database', () => {
  it('applies while a create’s write is open, and rewrites nothing', async (ctx) => {
    const populated = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
    try {
      requireRealPostgres(ctx, populated)
      await migrate(populated.sql, migrationsUpTo(9))
      await seedClaims(populated.sql, {
        owners: 2_000,
        rewards: 20_000,
        claims: 5_000,
        live: 500,
        idempotencyKeys: 100,
        replays: 10,
      })
      const table = () =>
        populated.sql<{ file: string; options: string[] | null; claims: number }[]>`
          select pg_relation_filenode('claim_transactions')::text as file, c.reloptions as options,
            (select count(*)::int from claim_transactions) as claims
          from pg_class c where c.oid = 'claim_transactions'::regclass`
      const [before] = await table()
      expect(before!.options).toBeNull()
      // a create under way: it holds the table's ROW EXCLUSIVE lock until it commits, and the migration
      // does not wait for it
      const holder = await populated.sql.reserve()
      try {
        await holder`begin`
        await newClaim(holder, 1)
        let timer: NodeJS.Timeout | undefined
        await Promise.race([
          migrate(populated.sql, migrationsUpTo(10)),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('the migration waited for an open write')), 10_000)
          }),
        ]).finally(() => clearTimeout(timer))
        // writes go on: an update of a seeded claim, under a short lock timeout
        await populated.sql.begin(async (tx) => {
          await tx`set local lock_timeout = '2s'`
          await tx`update claim_transactions set watched = true where id = md5('c1')::uuid`
        })
        await holder`commit`
      } finally {
        await holder`rollback`.catch(() => {})
        holder.release()
      }
      const [after] = await table()
      // the same file: no rewrite of the claims there were (nor lock long enough for one)
      expect(after).toEqual({ file: before!.file, options: ['fillfactor=85'], claims: before!.claims + 1 })
      const [applied] = await populated.sql<
        { n: number }[]
      >`select max(migration_id)::int as n from migrations`
      expect(applied!.n).toBe(10)
    } finally {
      await populated.drop()
    }
  }, 120_000)
})

describe('00011/00012 (users the backfill missed)', () => {
  it('waits for the writes begun before it, then counts every uncounted user', async (ctx) => {
    const populated = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
    try {
      requireRealPostgres(ctx, populated)
      await migrate(populated.sql, migrationsUpTo(11))
      const straggler = `0x${'7'.repeat(40)}`
      const grant = (sql: Queryable, n: number, user = straggler) => sql`
        insert into rewards (id, "user", chain_id, contract, item_id)
        select gen_random_uuid(), ${user}, '137', ${`0x${'1'.repeat(40)}`}, ${n}`
      // a grant to a new user under way when the migration starts, whose trigger ran before the backfill's
      // end: its row not counted, its totals short, and not visible until it commits
      const holder = await populated.sql.reserve()
      try {
        await holder`begin`
        await grant(holder, 1)
        await grant(holder, 2)
        await holder`update user_totals set counted = false, rewards = 0 where "user" = ${straggler}`
        let done = false
        const migrating = migrate(populated.sql, migrationsDir).then(() => {
          done = true
        })
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(done).toBe(false)
        // writes begun after it go on while it waits (another user's: the holder has the straggler's row)
        await populated.sql.begin(async (tx) => {
          await tx`set local lock_timeout = '1s'`
          await grant(tx, 4, `0x${'6'.repeat(40)}`)
        })
        expect(done).toBe(false)
        await holder`commit`
        await migrating
      } finally {
        await holder`rollback`.catch(() => {})
        holder.release()
      }
      const [row] = await populated.sql<{ rewards: number; counted: boolean }[]>`
        select rewards::int, counted from user_totals where "user" = ${straggler}`
      expect(row).toEqual({ rewards: 2, counted: true })
      const [uncounted] = await populated.sql<{ n: number }[]>`
        select count(*)::int as n from user_totals where not counted`
      expect(uncounted!.n).toBe(0)
    } finally {
      await populated.drop()
    }
  }, 60_000)
})
