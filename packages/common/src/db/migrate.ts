import shift from 'postgres-shift'
import { isEmbedded, type Sql } from './database.js'

// One key for every service: each service owns its own database, so they never contend.
const MIGRATION_LOCK = 7_262_021

/**
 * Tables the kit itself needs in every service's database (signed-fetch replay protection). The used
 * signatures are unlogged: remembering one costs no WAL flush, which on a signed write request would be a
 * second commit to disk beside the service's own. They live AUTH_MAX_AGE_S at most, and after a crash of
 * the database the table comes back empty (README.md, Signed fetch).
 */
async function ensureKitTables(sql: Sql) {
  await sql`
    create unlogged table if not exists signed_fetch_replays (
      signature text primary key,
      expires_at timestamptz not null
    )`
  await sql`create index if not exists signed_fetch_replays_expires_at on signed_fetch_replays (expires_at)`
  // Databases made before the table was unlogged (a rewrite of a table of a few minutes of signatures).
  const [table] = await sql<{ logged: boolean }[]>`
    select relpersistence = 'p' as logged from pg_class where oid = 'signed_fetch_replays'::regclass`
  if (table?.logged) await sql`alter table signed_fetch_replays set unlogged`
}

/**
 * Applies the service's migrations (postgres-shift layout: `00001_name/index.sql`) under an advisory
 * lock, so replicas that start together apply them once and in order.
 */
export async function migrate(sql: Sql, migrationsDir: string): Promise<void> {
  // The embedded database belongs to one process and has a single connection: nothing to race.
  if (isEmbedded(sql)) {
    await ensureKitTables(sql)
    await shift({ sql, path: migrationsDir })
    return
  }
  const lock = await sql.reserve()
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK})`
    await ensureKitTables(sql)
    await shift({ sql, path: migrationsDir })
  } finally {
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {})
    lock.release()
  }
}
