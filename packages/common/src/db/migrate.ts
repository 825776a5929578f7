import shift from 'postgres-shift'
import { isEmbedded, type Sql } from './database.js'

// One key for every service: each service owns its own database, so they never contend.
const MIGRATION_LOCK = 7_262_021

/** Tables the kit itself needs in every service's database (signed-fetch replay protection). */
async function ensureKitTables(sql: Sql) {
  await sql`
    create table if not exists signed_fetch_replays (
      signature text primary key,
      expires_at timestamptz not null
    )`
  await sql`create index if not exists signed_fetch_replays_expires_at on signed_fetch_replays (expires_at)`
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
