import { describe, expect, it } from 'vitest'
import { BATCH_SIZE, batchTimeoutMs, createSql, inBatches, pruneSignatures } from '../src/index.js'
import { lockWaiters, requireRealPostgres, tuplesRead } from '../src/testing/index.js'
import { useKitDatabase } from './set-up.js'

const db = useKitDatabase()

/** `expired` signatures past their time (the oldest first by number) and `live` ones still inside it. */
async function fill(expired: number, live: number) {
  await db.sql`delete from signed_fetch_replays`
  await db.sql`
    insert into signed_fetch_replays (signature, expires_at)
    select 'old-' || lpad(n::text, 6, '0'), now() - interval '1 hour' + n * interval '1 millisecond'
    from generate_series(1, ${expired}::int) as n`
  await db.sql`
    insert into signed_fetch_replays (signature, expires_at)
    select 'live-' || n, now() + interval '1 hour' from generate_series(1, ${live}::int) as n`
}

const remaining = async (prefix: string) =>
  (
    await db.sql<
      { n: number }[]
    >`select count(*)::int as n from signed_fetch_replays where signature like ${`${prefix}%`}`
  )[0]!.n

describe('pruning the used signatures', () => {
  it('forgets every expired one and keeps the live ones', async () => {
    await fill(BATCH_SIZE * 2 + 500, 300)
    expect(await pruneSignatures(db.sql)).toBe(BATCH_SIZE * 2 + 500)
    expect(await remaining('old-')).toBe(0)
    expect(await remaining('live-')).toBe(300)
    expect(await pruneSignatures(db.sql)).toBe(0)
  })

  it('commits batch by batch, oldest first: a row it waits for holds back only its own batch', async (ctx) => {
    requireRealPostgres(ctx, db)
    await fill(BATCH_SIZE * 2 + 500, 0)
    // a transaction holds the first row of the third batch
    const holder = await db.sql.reserve()
    await holder`begin`
    await holder`select 1 from signed_fetch_replays where signature = ${`old-${String(BATCH_SIZE * 2 + 1).padStart(6, '0')}`} for update`
    const pruning = pruneSignatures(db.sql)
    await lockWaiters(db.sql)
    // the first two batches are done and visible while the third waits
    expect(await remaining('old-')).toBe(500)
    await holder`rollback`
    holder.release()
    expect(await pruning).toBe(BATCH_SIZE * 2 + 500)
    expect(await remaining('old-')).toBe(0)
  })

  it('reads each expired row about once, even with statistics taken when the table was tiny and an old snapshot open', async (ctx) => {
    requireRealPostgres(ctx, db)
    await fill(0, 60)
    await db.sql`vacuum analyze signed_fetch_replays`
    // The statistics stay those of the tiny table: an autovacuum worker passing by (sooner when other
    // packages' tests make databases beside this one) would analyze the filled table mid-test.
    await db.sql`alter table signed_fetch_replays set (autovacuum_enabled = false)`
    await fill(BATCH_SIZE * 10, 0)
    const pool = createSql(db.url, { max: 1 })
    const read = () => tuplesRead(pool, 'signed_fetch_replays')
    // A transaction of another client holding a snapshot older than the deletes (a long report, a busy
    // replica): PostgreSQL may not mark the deleted rows' index entries dead while it is open.
    const holder = await db.sql.reserve()
    try {
      await holder`begin isolation level repeatable read`
      await holder`select count(*) from signed_fetch_replays`
      const before = await read()
      expect(await pruneSignatures(pool)).toBe(BATCH_SIZE * 10)
      // each batch reads its own rows from the index (and the delete finds them by address), not every
      // expired row again: that would be ~55,000 reads for ten batches
      expect((await read()) - before).toBeLessThanOrEqual(BATCH_SIZE * 10 * 2 + 100)
    } finally {
      await holder`rollback`.catch(() => {})
      holder.release()
      await pool.end({ timeout: 5 })
    }
  })

  it('stops between batches once told to', async () => {
    await fill(BATCH_SIZE * 3, 0)
    const stopping = new AbortController()
    let batches = 0
    const changed = await inBatches(
      db.sql,
      async (tx) => {
        batches++
        if (batches === 2) stopping.abort()
        return (
          await tx`delete from signed_fetch_replays where ctid = any(array(
            select ctid from signed_fetch_replays order by expires_at limit ${BATCH_SIZE}))`
        ).count
      },
      { size: BATCH_SIZE, signal: stopping.signal },
    )
    expect({ batches, changed }).toEqual({ batches: 2, changed: BATCH_SIZE * 2 })
    expect(await remaining('old-')).toBe(BATCH_SIZE)
  })
})

describe('a batch past the deadline', () => {
  it('is cancelled by PostgreSQL, so the job reports failed only what did not commit', async (ctx) => {
    requireRealPostgres(ctx, db)
    // the pool of a service with a short query deadline
    const pool = createSql(db.url, { timeouts: { queryMs: 1500 } })
    try {
      await fill(10, 0)
      const holder = await db.sql.reserve()
      await holder`begin`
      await holder`select 1 from signed_fetch_replays where signature = 'old-000001' for update`
      const pruning = pruneSignatures(pool)
      const failure = pruning.then(
        () => 'committed',
        (error: { code?: string }) => error.code,
      )
      await lockWaiters(db.sql)
      // PostgreSQL's own statement timeout (57014), under the pool's deadline (QUERY_TIMEOUT)
      expect(await failure).toBe('57014')
      // once the row is let go, nothing of the reported failure commits behind the job's back
      await holder`rollback`
      holder.release()
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(await remaining('old-')).toBe(10)
    } finally {
      await pool.end({ timeout: 5 })
    }
  })

  it('leaves room under the deadline', () => {
    expect(batchTimeoutMs(0)).toBe(0)
    expect(batchTimeoutMs(5000)).toBe(4000)
    expect(batchTimeoutMs(1500)).toBe(1200)
    expect(batchTimeoutMs(200)).toBe(100)
  })
})
