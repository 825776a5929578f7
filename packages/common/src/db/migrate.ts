import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isEmbedded, type Sql } from './database.js'
import type { Queryable } from './queryable.js'

// One key for every service: each service owns its own database, so they never contend.
const MIGRATION_LOCK = 7_262_021
/** How often a replica that waits for another's migrations asks for the lock again. */
const LOCK_POLL_MS = 200

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
 * A migration: `NNNNN_name/index.sql`, run in a transaction with the other pending ones, or
 * `NNNNN_name/online.sql`, run outside any transaction, one statement at a time, for what PostgreSQL
 * refuses in a transaction or should not hold a lock for: `create index concurrently`, `drop index
 * concurrently`, a backfill in batches. Each statement of an online migration ends with `;` at the end of
 * its line and must be safe to run again (a process that dies half-way runs the migration again on its
 * next start): `if not exists`, `if exists`, updates that skip the rows done.
 */
interface Migration {
  id: number
  name: string
  kind: 'transaction' | 'online'
  file: string
}

function migrationsIn(dir: string): Migration[] {
  const migrations = readdirSync(dir)
    .filter((entry) => /^[0-9]{5}_/.test(entry))
    .sort()
    .map((entry): Migration => {
      const online = join(dir, entry, 'online.sql')
      const transaction = join(dir, entry, 'index.sql')
      if (existsSync(online) === existsSync(transaction)) {
        throw new Error(`migration ${entry}: expected exactly one of index.sql and online.sql`)
      }
      return {
        id: Number.parseInt(entry.slice(0, 5), 10),
        // as postgres-shift, which kept this table before, named them
        name: entry.slice(6).replace(/-/g, ' '),
        kind: existsSync(online) ? 'online' : 'transaction',
        file: existsSync(online) ? online : transaction,
      }
    })
  migrations.forEach((migration, i) => {
    if (migration.id !== i + 1) throw new Error(`Inconsistency in migration numbering at: ${migration.id}`)
  })
  return migrations
}

/** The statements of an online migration: `;` at a line's end ends one; `--` comments are dropped. */
export function onlineStatements(text: string, file = 'online.sql'): string[] {
  if (text.includes('$$'))
    throw new Error(`${file}: an online migration holds plain statements (no $$ bodies)`)
  return text
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((statement) =>
      statement
        .split('\n')
        .filter((line) => !line.trim().startsWith('--'))
        .join('\n')
        .trim(),
    )
    .filter((statement) => statement.length > 0)
}

/**
 * Indexes a `create index concurrently` of this migration would build, left invalid by an earlier attempt
 * that died or failed half-way: `if not exists` would keep such an index, so it is dropped first.
 */
async function dropInvalidIndexes(sql: Queryable, statements: string[]) {
  const names = statements.flatMap((statement) => {
    const match =
      /^create\s+(?:unique\s+)?index\s+concurrently\s+(?:if\s+not\s+exists\s+)?("?[\w$]+"?)/i.exec(statement)
    return match ? [match[1]!.replaceAll('"', '')] : []
  })
  if (names.length === 0) return
  const invalid = await sql<{ name: string }[]>`
    select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
    where not i.indisvalid and c.relname = any(${names}) and pg_table_is_visible(c.oid)`
  for (const { name } of invalid) await sql.unsafe(`drop index concurrently if exists "${name}"`)
}

async function ensureMigrationsTable(sql: Queryable) {
  await sql`
    create table if not exists migrations (
      migration_id serial primary key,
      created_at timestamp with time zone not null default now(),
      name text
    )`
}

const record = (sql: Queryable, migration: Migration) =>
  sql`insert into migrations (migration_id, name) values (${migration.id}, ${migration.name})`

/**
 * Applies what is pending, in order: consecutive transactional migrations together in one transaction
 * (all or none of them), each online migration on `session` outside any transaction. The embedded
 * database has one connection and nothing to race with: `concurrently` is dropped there.
 */
async function applyPending(sql: Sql, session: Queryable, migrationsDir: string) {
  const migrations = migrationsIn(migrationsDir)
  await ensureMigrationsTable(session)
  const [current] = await session<{ id: number | null }[]>`select max(migration_id) as id from migrations`
  const pending = migrations.slice(current?.id ?? 0)
  while (pending.length > 0) {
    const batch: Migration[] = []
    while (pending[0]?.kind === 'transaction') batch.push(pending.shift()!)
    if (batch.length > 0) {
      await sql.begin(async (tx) => {
        for (const migration of batch) {
          await tx.file(migration.file)
          await record(tx, migration)
        }
      })
      continue
    }
    const migration = pending.shift()!
    const statements = onlineStatements(readFileSync(migration.file, 'utf8'), migration.file)
    if (isEmbedded(sql)) {
      for (const statement of statements) await session.unsafe(statement.replace(/\bconcurrently\b/gi, ''))
    } else {
      await dropInvalidIndexes(session, statements)
      for (const statement of statements) await session.unsafe(statement)
    }
    await record(session, migration)
  }
}

/**
 * Applies the service's migrations (`00001_name/index.sql` or `/online.sql`, the layout postgres-shift
 * used, and its `migrations` table) under an advisory lock, so replicas that start together apply them
 * once and in order. A replica waiting for the lock asks again every LOCK_POLL_MS rather than blocking in
 * `pg_advisory_lock`: a statement blocked there holds a snapshot, which a `create index concurrently` of
 * the migrating replica would wait for, while it waits for the lock: a deadlock.
 */
export async function migrate(sql: Sql, migrationsDir: string): Promise<void> {
  // The embedded database belongs to one process and has a single connection: nothing to race.
  if (isEmbedded(sql)) {
    await ensureKitTables(sql)
    await applyPending(sql, sql, migrationsDir)
    return
  }
  const lock = await sql.reserve()
  let locked = false
  try {
    for (;;) {
      const [row] = await lock<
        { locked: boolean }[]
      >`select pg_try_advisory_lock(${MIGRATION_LOCK}) as locked`
      if (row?.locked) break
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS))
    }
    locked = true
    await ensureKitTables(sql)
    await applyPending(sql, lock, migrationsDir)
  } finally {
    if (locked) await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {})
    lock.release()
  }
}
