import { BATCH_SIZE, createSql, type Sql } from '@genesis/common'
import { lockWaiters, requireRealPostgres, tuplesRead } from '@genesis/common/testing'
import { beforeEach, describe, expect, it } from 'vitest'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { adoptChain } from '../src/jobs/reconciler.js'
import { failExpired, pruneKeys, sweep } from '../src/jobs/sweeper.js'
import { CONTRACT, useService } from './helpers.js'

// The background jobs at volume: each tick reads the rows it changes and no others (not the settled
// history), a backlog is cleared in batches that commit one by one, and a batch PostgreSQL cannot finish
// under the pool's deadline is cancelled by PostgreSQL rather than committed after the job reported it failed.
const t = useService()
beforeEach(async () => {
  await t.db.sql`truncate claim_transactions, idempotency_keys`
})

type State = 'expired' | 'live' | 'pending' | 'settled'

/** `n` claims of a chain in a state, numbered from `from` (their expiry in that order). */
async function insertClaims(
  n: number,
  state: State,
  options: { chain?: string; watched?: boolean; from?: number } = {},
) {
  const status = state === 'pending' ? 'pending' : state === 'settled' ? 'successful' : 'claimed'
  await t.db.sql`
    insert into claim_transactions (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
      status, transaction_hash, rewards, expires_at, watched, created_at, updated_at)
    select md5(${state} || ${options.chain ?? '137'} || n)::uuid, '0x' || lpad(to_hex(n), 40, '0'), ${options.chain ?? '137'},
      ${CONTRACT}, '0x' || repeat(md5('p' || n), 28), '0x' || md5('h' || n) || md5('i' || n), ${status},
      case when ${status} <> 'claimed' then '0x' || md5('t' || n) || md5(${state} || n) end, array[gen_random_uuid()],
      now() + ${state === 'live' || state === 'pending' ? 1 : -1} * interval '1 hour' + n * interval '1 millisecond',
      ${options.watched ?? false}, now() - interval '2 hours', now() - interval '2 hours'
    from generate_series(${options.from ?? 1}::int, ${(options.from ?? 1) + n - 1}::int) as n`
}

const countWhere = async (status: string, watched?: boolean) =>
  (
    await t.db.sql<{ n: number }[]>`
      select count(*)::int as n from claim_transactions
      where status = ${status} and (${watched ?? null}::boolean is null or watched = ${watched ?? null})`
  )[0]!.n

/**
 * What a job read of claim_transactions, as PostgreSQL counts it: it runs on a pool of one connection, whose
 * counters are flushed before they are read.
 */
async function tableReads(job: (sql: Sql) => Promise<unknown>) {
  const pool = createSql(t.db.url, { max: 1, settings: CLAIMS_DB_SETTINGS })
  const read = async () => {
    await pool`select pg_stat_force_next_flush()`
    await pool`select 1`
    const [row] = await pool<{ seq: number; fetched: number }[]>`
      select seq_scan::int as seq, coalesce(idx_tup_fetch, 0)::int as fetched
      from pg_stat_user_tables where relname = 'claim_transactions'`
    return row!
  }
  try {
    const before = await read()
    await job(pool)
    const after = await read()
    return { seqScans: after.seq - before.seq, rowsFetched: after.fetched - before.fetched }
  } finally {
    await pool.end({ timeout: 5 })
  }
}

describe('the sweeper', () => {
  it('with nothing to do reads no settled claim, whatever the statistics say', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    await insertClaims(2_000, 'settled')
    await insertClaims(300, 'live')
    // statistics taken while a backlog filled most of the table: a plan chosen from them scans it
    await insertClaims(20_000, 'expired', { from: 100_000 })
    await t.db.sql`analyze claim_transactions`
    expect((await sweep(t.db.sql)).expired).toBe(20_000)
    const reads = await tableReads((sql) => sweep(sql))
    expect(reads).toEqual({ seqScans: 0, rowsFetched: 0 })
    expect(await countWhere('claimed')).toBe(300)
  })

  it('clears a backlog in batches, each committed on its own, oldest expiry first', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const backlog = BATCH_SIZE * 2 + 500
    await insertClaims(backlog, 'expired')
    await insertClaims(200, 'live')
    await insertClaims(100, 'expired', { chain: '80002', watched: true })
    await insertClaims(100, 'pending', { chain: '80002' })
    // a transaction holds the first claim of the third batch
    const holder = await t.db.sql.reserve()
    let sweeping: Promise<number>
    try {
      await holder`begin`
      await holder`select 1 from claim_transactions where id = md5(${`expired137${BATCH_SIZE * 2 + 1}`})::uuid for update`
      sweeping = failExpired(t.db.sql)
      await lockWaiters(t.db.sql)
      // the first two batches are visible while the third waits
      expect(await countWhere('failed')).toBe(BATCH_SIZE * 2)
    } finally {
      await holder`rollback`
      holder.release()
    }
    expect(await sweeping).toBe(backlog)
    expect(await countWhere('failed')).toBe(backlog)
    // a watched chain's expired claims, unexpired ones and pending ones are left to the chain or the owner
    expect(await countWhere('claimed')).toBe(300)
    expect(await countWhere('pending')).toBe(100)
  })

  it('reads each claim of a backlog about once, even under an old snapshot', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const backlog = BATCH_SIZE * 10
    await insertClaims(backlog / 2, 'expired')
    await insertClaims(backlog / 2, 'expired', { chain: '80002', from: backlog })
    await t.db.sql`vacuum analyze claim_transactions`
    const pool = createSql(t.db.url, { max: 1, settings: CLAIMS_DB_SETTINGS })
    // another client's transaction holding a snapshot older than the updates: PostgreSQL may not mark the
    // failed claims' old index entries dead while it is open, so a batch scanning from the start would
    // read every earlier batch's again
    const holder = await t.db.sql.reserve()
    try {
      await holder`begin isolation level repeatable read`
      await holder`select count(*) from claim_transactions`
      const before = await tuplesRead(pool, 'claim_transactions')
      expect(await failExpired(pool)).toBe(backlog)
      const read = (await tuplesRead(pool, 'claim_transactions')) - before
      // ~2.5 a claim (its entry in the batch's range, its primary key for the update); every batch from
      // the start of the range: ~8
      expect(read).toBeLessThanOrEqual(backlog * 3)
    } finally {
      await holder`rollback`.catch(() => {})
      holder.release()
      await pool.end({ timeout: 5 })
    }
    expect(await countWhere('failed')).toBe(backlog)
  })

  it('writes a backlog on few pages when the table’s free space lies in one-claim holes (fillfactor, 00010)', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    const [table] = await t.db.sql<{ fillfactor: string }[]>`
      select coalesce((select split_part(o, '=', 2) from unnest(reloptions) as o where o like 'fillfactor=%'), '100')
        as fillfactor
      from pg_class where oid = 'claim_transactions'::regclass`
    const backlog = 1_000
    /** The pages a backlog's claims were written on, and those the sweeper wrote their failures on. */
    const pagesOfBacklog = async (fillfactor: string) => {
      await t.db.sql`truncate claim_transactions`
      // a history written on full pages, as before 00010; one claim of every page changed since (its new
      // version elsewhere) and the table vacuumed: a hole of one claim on each page, in the free space map
      await t.db.sql`alter table claim_transactions set (fillfactor = 100)`
      await insertClaims(12 * backlog, 'settled', { from: 1_000_000 })
      await t.db.sql`update claim_transactions set watched = true where (ctid::text::point)[1] = 1`
      await t.db.sql`vacuum claim_transactions`
      await t.db.sql`alter table claim_transactions set (fillfactor = ${t.db.sql.unsafe(fillfactor)})`
      const blocks = () => t.db.sql<{ block: number }[]>`
        select distinct (ctid::text::point)[0]::int as block from claim_transactions where chain_id = '137'
          and expires_at < now() and status <> 'successful'`
      await insertClaims(backlog, 'expired')
      const written = await blocks()
      expect((await sweep(t.db.sql)).expired).toBe(backlog)
      expect(await countWhere('failed')).toBe(backlog)
      return new Set([...written, ...(await blocks())].map((row) => row.block)).size
    }
    try {
      // the claims written with room: five a page, each page's first failure on its own page, the others
      // together on pages with room
      expect(table!.fillfactor).toBe('85')
      expect(await pagesOfBacklog(table!.fillfactor)).toBeLessThan(backlog / 2)
      // full pages: each claim and each failure in a hole of its own, across the history
      expect(await pagesOfBacklog('100')).toBeGreaterThan(backlog * 1.5)
    } finally {
      await t.db.sql`alter table claim_transactions set (fillfactor = ${t.db.sql.unsafe(table!.fillfactor)})`
    }
  }, 60_000)

  it('past the deadline: PostgreSQL cancels the batch, and nothing of it commits after the job reported it failed', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    await insertClaims(10, 'expired')
    const pool = createSql(t.db.url, { settings: CLAIMS_DB_SETTINGS, timeouts: { queryMs: 1500 } })
    const holder = await t.db.sql.reserve()
    try {
      await holder`begin`
      await holder`select 1 from claim_transactions where id = md5('expired1371')::uuid for update`
      const outcome = sweep(pool).then(
        () => 'done',
        (error: { code?: string }) => error.code,
      )
      await lockWaiters(t.db.sql)
      expect(await outcome).toBe('57014')
    } finally {
      await holder`rollback`
    }
    try {
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(await countWhere('failed')).toBe(0)
    } finally {
      holder.release()
      await pool.end({ timeout: 5 })
    }
  })

  it('prunes the Idempotency-Keys past 24 hours in batches, reading each about once, even under an old snapshot', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    await insertClaims(1, 'live')
    const [claim] = await t.db.sql<{ id: string }[]>`select id from claim_transactions`
    const expired = BATCH_SIZE * 10 + 10
    await t.db.sql`
      insert into idempotency_keys ("user", key, request_hash, claim_transaction_id, created_at)
      select 'u', 'k' || n, 'h', ${claim!.id}, now() - interval '25 hours' + n * interval '1 millisecond'
      from generate_series(1, ${expired}::int) as n`
    await t.db.sql`
      insert into idempotency_keys ("user", key, request_hash, claim_transaction_id, created_at)
      select 'u', 'fresh' || n, 'h', ${claim!.id}, now() - interval '23 hours' from generate_series(1, 50) as n`
    await t.db.sql`vacuum analyze idempotency_keys`
    const pool = createSql(t.db.url, { max: 1, settings: CLAIMS_DB_SETTINGS })
    const reads = () => tuplesRead(pool, 'idempotency_keys')
    // another client's transaction holding a snapshot older than the deletes: PostgreSQL may not mark the
    // deleted keys' index entries dead while it is open, so a batch scanning from the start reads them again
    const holder = await t.db.sql.reserve()
    try {
      await holder`begin isolation level repeatable read`
      await holder`select count(*) from idempotency_keys`
      const before = await reads()
      expect(await pruneKeys(pool)).toBe(expired)
      // ~2 reads a key (the batch's index scan, the delete by address); from the start each time: ~6 a key
      expect((await reads()) - before).toBeLessThanOrEqual(expired * 2 + 100)
    } finally {
      await holder`rollback`.catch(() => {})
      holder.release()
      await pool.end({ timeout: 5 })
    }
    const [left] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from idempotency_keys`
    expect(left!.n).toBe(50)
  })
})

describe('the adoption of a chain given an RPC URL', () => {
  it('makes its live claims watched in batches and reads only those', async (ctx) => {
    requireRealPostgres(ctx, t.db)
    await insertClaims(20_000, 'settled', { chain: '80002' })
    await insertClaims(5_000, 'live', { chain: '137' })
    await insertClaims(300, 'expired', { chain: '80002' })
    await insertClaims(BATCH_SIZE * 2 + 100, 'live', { chain: '80002' })
    await insertClaims(50, 'pending', { chain: '80002' })
    await t.db.sql`analyze claim_transactions`
    const holder = await t.db.sql.reserve()
    let adopting: Promise<number>
    try {
      await holder`begin`
      // the last claimed claim of the second batch (the first takes the pending ones first)
      await holder`select 1 from claim_transactions where id = md5(${`live80002${BATCH_SIZE * 2 - 50}`})::uuid for update`
      adopting = adoptChain(t.db.sql, '80002')
      await lockWaiters(t.db.sql)
      expect(await countWhere('claimed', true)).toBe(BATCH_SIZE - 50)
    } finally {
      await holder`rollback`
      holder.release()
    }
    expect(await adopting).toBe(BATCH_SIZE * 2 + 150)
    expect(await countWhere('pending', true)).toBe(50)
    expect(await countWhere('claimed', true)).toBe(BATCH_SIZE * 2 + 100)
    // a claim the clock has freed already stays with the clock; another chain's claims are not its
    expect(await countWhere('successful', true)).toBe(0)
    const reads = await tableReads((sql) => adoptChain(sql, '80002'))
    expect(reads).toEqual({ seqScans: 0, rowsFetched: 0 })
  })
})
