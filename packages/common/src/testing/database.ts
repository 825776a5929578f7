import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createEmbeddedSql, createSql, type SessionSettings, type Sql } from '../db/database.js'
import { startEmbeddedPostgres } from '../db/embedded.js'

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

/**
 * A fresh database on the real PostgreSQL, for one test file; drop() removes it. Without a reachable
 * PostgreSQL the tests fall back to an in-memory PGlite so they still run on a bare machine, except
 * under CI=true, where that is an error.
 */
export async function createTestDatabase(
  options: { settings?: SessionSettings } = {},
): Promise<TestDatabase> {
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
    return {
      url: embedded.url,
      sql,
      embedded: true,
      drop: async () => {
        await sql.end({ timeout: 5 })
        await embedded.stop()
      },
    }
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  const admin = createSql(serverUrl, { max: 1 })
  await admin.unsafe(`create database "${name}"`)
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
