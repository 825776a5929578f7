import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createEmbeddedSql, createSql, type SessionSettings, type Sql } from '../db/database.js'
import { startEmbeddedPostgres } from '../db/embedded.js'
import { migrate } from '../db/migrate.js'
import type { Queryable } from '../db/queryable.js'

export interface TestDatabase {
  url: string
  sql: Sql
  /** True when no PostgreSQL answered and an in-memory PGlite stands in (never under CI=true). */
  embedded: boolean
  drop(): Promise<void>
}

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres'

export const testServerUrl = () => process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || DEFAULT_URL

/** Whether a PostgreSQL answers at `url`. */
export async function postgresAnswers(url: string = testServerUrl()): Promise<boolean> {
  const probe = createSql(url, { max: 1 })
  try {
    await probe`select 1`
    return true
  } catch {
    return false
  } finally {
    await probe.end({ timeout: 1 })
  }
}

/**
 * The test run: `pnpm test` names it (GENESIS_TEST_RUN, for every package it runs); a bare `vitest run` is
 * the process whose workers run the files.
 */
const testRun = () => process.env.GENESIS_TEST_RUN ?? `vitest-${process.ppid}`

/**
 * Prints the notice of `topic` once per test run, however many test files (each in its own worker) give
 * it: the first to create the run's marker file (in the temporary directory) prints it.
 */
export function noticeOncePerRun(topic: string, message: string, run: string = testRun()): void {
  const name = `genesis-test-notice-${`${run}-${topic}`.replace(/[^\w.-]/g, '_')}`
  try {
    writeFileSync(join(tmpdir(), name), `${message}\n`, { flag: 'wx' })
  } catch {
    return
  }
  console.warn(message)
}

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** What a test database holds beyond its migrations: a data set written once into the package's template. */
export interface TestDatabaseSeed {
  /** Names the set in the template's name (`seeded`). */
  name: string
  /**
   * The files and folders the set is made from (its data and its code): their content is in the template's
   * name, so that a change to any of them makes a new template.
   */
  inputs: string[]
  write(sql: Sql): Promise<void>
}

export interface TestDatabaseOptions {
  /** Sent at connect by every connection of the pool. */
  settings?: SessionSettings
  /** The service's migrations, applied before the database is handed over. */
  migrationsDir?: string
  /** A data set written after the migrations (needs `migrationsDir`). */
  seed?: TestDatabaseSeed
}

/**
 * A fresh database on the real PostgreSQL, for one test file; drop() removes it. With `migrationsDir` it
 * holds the migrations (and the `seed`, if any): it is copied from a template database that the first test
 * file of any run makes once (see `ensureTemplate`), instead of migrating and seeding again for every file.
 * Without a reachable PostgreSQL the tests fall back to an in-memory PGlite so they still run on a bare
 * machine, except under CI=true, where that is an error.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = testServerUrl()
  if (!(await postgresAnswers(serverUrl))) {
    if (process.env.CI === 'true' || process.env.CI === '1') {
      throw new Error(
        `CI=true and PostgreSQL does not answer at ${serverUrl}: the tests need a real PostgreSQL`,
      )
    }
    noticeOncePerRun(
      'pglite-fallback',
      `PostgreSQL does not answer at ${serverUrl}: the tests run on an in-memory PGlite instead ` +
        '(the few that need a real server are skipped, each saying so)',
    )
    const embedded = await startEmbeddedPostgres()
    const sql = createEmbeddedSql(embedded.url, options.settings)
    const drop = async () => {
      await sql.end({ timeout: 5 })
      await embedded.stop()
    }
    try {
      await fill(sql, options)
    } catch (error) {
      await drop()
      throw error
    }
    return { url: embedded.url, sql, embedded: true, drop }
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  const admin = createSql(serverUrl, { max: 1 })
  try {
    if (options.migrationsDir === undefined) await admin.unsafe(`create database "${name}"`)
    else await copyTemplate(admin, serverUrl, name, options.migrationsDir, options.seed)
  } catch (error) {
    await admin.end({ timeout: 5 })
    throw error
  }
  const url = withDatabase(serverUrl, name)
  const sql = createSql(url, { max: 20, settings: options.settings })
  return {
    url,
    sql,
    embedded: false,
    drop: async () => {
      await sql.end({ timeout: 5 })
      await admin.unsafe(`drop database if exists "${name}" with (force)`)
      await admin.end({ timeout: 5 })
    },
  }
}

/** The migrations, then the seed, as a template holds them. */
async function fill(sql: Sql, options: Pick<TestDatabaseOptions, 'migrationsDir' | 'seed'>) {
  if (options.seed && options.migrationsDir === undefined) {
    throw new Error(`the test database seed ${options.seed.name} needs the migrations (migrationsDir)`)
  }
  if (options.migrationsDir === undefined) return
  await migrate(sql, options.migrationsDir)
  await options.seed?.write(sql)
}

/** How many templates of one package (and seed) stay on the server: the newest, for other checkouts' runs. */
const TEMPLATES_KEPT = 4
const TEMPLATE_LOCK_POLL_MS = 100

/**
 * Creates the database `name` as a copy of the package's template, after making sure the template exists.
 * A template the copy finds gone (another checkout's run dropped it as stale) is made again.
 */
async function copyTemplate(
  admin: Sql,
  serverUrl: string,
  name: string,
  migrationsDir: string,
  seed: TestDatabaseSeed | undefined,
) {
  const template = templateName(migrationsDir, seed)
  for (let attempt = 1; ; attempt++) {
    await ensureTemplate(admin, serverUrl, template, { migrationsDir, seed })
    try {
      await admin.unsafe(`create database "${name}" template "${template.name}"`)
      return
    } catch (error) {
      // 3D000: the template does not exist (any more)
      if ((error as { code?: string }).code !== '3D000' || attempt === 3) throw error
    }
  }
}

interface TemplateName {
  name: string
  /** Every template of the same package and seed begins with it (the older ones are pruned by it). */
  family: string
}

/**
 * `test_template_<package>[_<seed>]_<hash>`: the hash covers the migrations, the kit's own tables (the
 * code of `migrate`) and the seed's inputs, so that a changed migration or seed gets a fresh template and
 * checkouts with different migrations never share one.
 */
function templateName(migrationsDir: string, seed: TestDatabaseSeed | undefined): TemplateName {
  const hash = createHash('sha256')
  hashInto(hash, migrationsDir)
  hashInto(hash, migrateModule())
  if (seed) for (const input of seed.inputs) hashInto(hash, input)
  const label = `${basename(dirname(migrationsDir))}${seed ? `_${seed.name}` : ''}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 24)
  const family = `test_template_${label}_`
  return { name: `${family}${hash.digest('hex').slice(0, 16)}`, family }
}

/** The module that applies migrations and makes the kit's tables (its .ts beside src, its .js in dist). */
function migrateModule(): string {
  const base = fileURLToPath(new URL('../db/migrate', import.meta.url))
  const file = [`${base}.js`, `${base}.ts`].find((candidate) => existsSync(candidate))
  if (!file) throw new Error(`the migrate module is not beside ${base}`)
  return file
}

/** Adds a file, or every file under a folder (by path relative to it, in order), to the hash. */
function hashInto(hash: ReturnType<typeof createHash>, path: string, root = path) {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) hashInto(hash, join(path, entry), root)
    return
  }
  hash.update(`${relative(root, path)}\0`)
  hash.update(readFileSync(path))
  hash.update('\0')
}

/**
 * Makes the template when it does not exist yet, safely when several test processes (vitest workers, the
 * packages of a run, other checkouts' runs) want it at once: under an advisory lock named by the template,
 * the first builds it under a building name and renames it when it is whole (a process that died half-way
 * leaves no template that looks whole); the others wait, then find it. A template takes no connections, so
 * that no stray session keeps a copy from being made. The older templates of the same family beyond the
 * newest few are dropped when they are not in use.
 */
async function ensureTemplate(
  admin: Sql,
  serverUrl: string,
  template: TemplateName,
  contents: Pick<TestDatabaseOptions, 'migrationsDir' | 'seed'>,
) {
  const exists = async (sql: Queryable) =>
    (await sql`select 1 from pg_database where datname = ${template.name}`).length > 0
  if (await exists(admin)) return
  // the admin pool's one connection, held: the advisory lock belongs to it
  const lock = await admin.reserve()
  let locked = false
  try {
    // polled, not blocking: a statement blocked in pg_advisory_lock holds a snapshot the whole time
    for (;;) {
      const [row] = await lock<{ locked: boolean }[]>`
        select pg_try_advisory_lock(hashtext(${template.name})) as locked`
      if (row?.locked) break
      await new Promise((resolve) => setTimeout(resolve, TEMPLATE_LOCK_POLL_MS))
    }
    locked = true
    if (await exists(lock)) return
    const building = template.name.replace('test_template_', 'test_building_')
    await lock.unsafe(`drop database if exists "${building}" with (force)`)
    await lock.unsafe(`create database "${building}"`)
    const sql = createSql(withDatabase(serverUrl, building), { max: 10 })
    try {
      await fill(sql, contents)
    } finally {
      await sql.end({ timeout: 5 })
    }
    await lock.unsafe(`alter database "${building}" rename to "${template.name}"`)
    await lock.unsafe(`alter database "${template.name}" with allow_connections false`)
    await pruneTemplates(lock, template)
  } finally {
    if (locked) await lock`select pg_advisory_unlock(hashtext(${template.name}))`.catch(() => {})
    lock.release()
  }
}

async function pruneTemplates(admin: Queryable, template: TemplateName) {
  const stale = await admin<{ datname: string }[]>`
    select datname from pg_database
    where starts_with(datname, ${template.family}) and datname <> ${template.name}
    order by oid desc offset ${TEMPLATES_KEPT - 1}`
  for (const { datname } of stale) {
    // a template being copied from refuses (or outlives) the drop: it goes another time
    await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {})
  }
}

/**
 * Skips the running test, saying why, when the database is the in-memory PGlite stand-in: for tests that
 * need a real server (LISTEN/NOTIFY across connections, other processes connecting to it).
 */
export function requireRealPostgres(context: { skip: () => void; task: { name: string } }, db: TestDatabase) {
  if (!db.embedded) return
  console.warn(`Skipped "${context.task.name}": it needs a real PostgreSQL server`)
  context.skip()
}

/**
 * Waits until `n` backends of the database `sql` is connected to wait on a lock: the requests a test
 * transaction holds back, so that what the test does before letting go lands between their reads and their
 * locked writes. Throws when they never do (the interleaving the test wanted was not forced).
 */
export async function lockWaiters(sql: Sql, n = 1): Promise<void> {
  for (let waited = 0; waited < 500; waited++) {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`
    if (row!.n >= n) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`${n} requests never waited on a lock: the interleaving was not forced`)
}

/**
 * How many tuples PostgreSQL has read of a table so far, its indexes' and its sequential scans' together:
 * take it before and after a job, on the job's own one-connection pool (whose counters are flushed first),
 * to know what the job read.
 */
export async function tuplesRead(sql: Sql, table: string): Promise<number> {
  await sql`select pg_stat_force_next_flush()`
  await sql`select 1`
  const [row] = await sql<{ n: number }[]>`
    select ((select coalesce(sum(idx_tup_read), 0) from pg_stat_user_indexes where relname = ${table})
            + (select coalesce(seq_tup_read, 0) from pg_stat_user_tables where relname = ${table}))::int as n`
  return row!.n
}
