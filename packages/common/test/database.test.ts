import { randomUUID } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSql,
  DatabaseTimeoutError,
  isDatabaseUnavailable,
  migrate,
  openDatabase,
  type Sql,
} from '../src/index.js'
import {
  createTestDatabase,
  requireRealPostgres,
  type TestDatabase,
  testServerUrl,
} from '../src/testing/index.js'
import { migrationsOf } from './fixtures.js'

let db: TestDatabase

beforeAll(async () => {
  db = await createTestDatabase()
})
afterAll(async () => {
  await db?.drop()
})

describe('migrate', () => {
  const dir = migrationsOf(
    'create table notes (id serial primary key, body text not null);',
    "insert into notes (body) values ('first'); alter table notes add column tag text;",
  )

  it('applies each migration once, in order, even when replicas start together', async (ctx) => {
    requireRealPostgres(ctx, db)
    await Promise.all([migrate(db.sql, dir), migrate(db.sql, dir), migrate(db.sql, dir)])
    await migrate(db.sql, dir)
    const notes = await db.sql`select body, tag from notes`
    expect(notes).toEqual([{ body: 'first', tag: null }])
    const applied = await db.sql`select migration_id from migrations order by migration_id`
    expect(applied.map((r) => r.migration_id)).toEqual([1, 2])
  })

  it('creates the kit’s replay table, unlogged, and makes an older logged one unlogged', async () => {
    const persistence = async () => {
      const [row] = await db.sql<{ relpersistence: string }[]>`
        select relpersistence from pg_class where oid = 'signed_fetch_replays'::regclass`
      return row?.relpersistence
    }
    await migrate(db.sql, dir)
    expect(await persistence()).toBe('u')
    await db.sql`insert into signed_fetch_replays values ('0xkept', now() + interval '1 minute')`
    await db.sql`alter table signed_fetch_replays set logged`
    await migrate(db.sql, dir)
    expect(await persistence()).toBe('u')
    const kept = await db.sql`select signature from signed_fetch_replays`
    expect(kept.map((r) => r.signature)).toEqual(['0xkept'])
  })

  it('rolls a failing migration back whole', async () => {
    const broken = migrationsOf(
      'create table a (id int);',
      'create table b (id int); select * from missing_table;',
    )
    const scratch = await createTestDatabase()
    await expect(migrate(scratch.sql, broken)).rejects.toThrow(/missing_table/)
    const [row] = await scratch.sql`select to_regclass('b') as b`
    expect(row?.b).toBeNull()
    await scratch.drop()
  })
})

describe('test databases', () => {
  it('are fresh and dropped afterwards', async (ctx) => {
    requireRealPostgres(ctx, db)
    const scratch = await createTestDatabase()
    const name = new URL(scratch.url).pathname.slice(1)
    await scratch.sql`create table t (id int)`
    await scratch.drop()
    const admin = createSql(testServerUrl(), { max: 1 })
    const rows = await admin`select 1 from pg_database where datname = ${name}`
    await admin.end()
    expect(rows).toHaveLength(0)
  })

  it('start every pooled connection with the session settings asked for', async (ctx) => {
    requireRealPostgres(ctx, db)
    const scratch = await createTestDatabase({ settings: { plan_cache_mode: 'force_generic_plan' } })
    const modes = await Promise.all(
      Array.from({ length: 4 }, () => scratch.sql.begin((tx) => tx`show plan_cache_mode`)),
    )
    await scratch.drop()
    expect(modes.map(([row]) => row?.plan_cache_mode)).toEqual(Array(4).fill('force_generic_plan'))
  })
})

describe('test databases from a template', () => {
  it('hold the migrations and the seed, written once however many ask at once; a changed migration makes a new template', async (ctx) => {
    requireRealPostgres(ctx, db)
    // content of its own, so that no template of an earlier run answers
    const dir = migrationsOf(`create table t (v text); -- ${randomUUID()}`)
    let written = 0
    const seed = {
      name: 'probe',
      inputs: [dir],
      write: async (sql: Sql) => {
        written++
        await sql`insert into t values ('seeded')`
      },
    }
    const admin = createSql(testServerUrl(), { max: 1 })
    const made = await Promise.all([1, 2, 3].map(() => createTestDatabase({ migrationsDir: dir, seed })))
    try {
      for (const copy of made) expect(await copy.sql`select v from t`).toEqual([{ v: 'seeded' }])
      expect(written).toBe(1)
      await made[0]!.sql`insert into t values ('mine')`
      expect(await made[1]!.sql`select v from t`).toEqual([{ v: 'seeded' }])

      writeFileSync(
        join(dir, '00001_step', 'index.sql'),
        `create table t (v text, w int); -- ${randomUUID()}`,
      )
      const changed = await createTestDatabase({ migrationsDir: dir, seed })
      const columns =
        await changed.sql`select column_name from information_schema.columns where table_name = 't'`
      await changed.drop()
      expect(written).toBe(2)
      expect(columns.map((c) => c.column_name).sort()).toEqual(['v', 'w'])
    } finally {
      for (const copy of made) await copy.drop()
      const templates = await admin<{ datname: string }[]>`
        select datname from pg_database where datname like 'test_template_%probe_%'`
      for (const { datname } of templates) await admin.unsafe(`drop database if exists "${datname}"`)
      await admin.end()
    }
  })
})

describe('embedded default', () => {
  it('starts PGlite under DATA_DIR, logs it, and keeps data across restarts', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'genesis-embedded-')), 'demo')
    const lines: string[] = []
    const logger = { info: (m: string | object) => lines.push(String(m)), warn: () => {} }
    const first = await openDatabase({ dataDir, service: 'demo', logger })
    expect(first.embedded).toBe(true)
    expect(lines.join('\n')).toContain(`embedded PostgreSQL (PGlite) with its data in ${dataDir}`)
    await migrate(first.sql, migrationsOf("create table kept (v text); insert into kept values ('hello');"))
    await first.close()

    const second = await openDatabase({ dataDir, service: 'demo' })
    expect(await second.sql`select v from kept`).toEqual([{ v: 'hello' }])
    // Concurrent transactions queue on the embedded client's single connection instead of interleaving.
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => second.sql.begin((tx) => tx`insert into kept values (${`v${i}`})`)),
    )
    const [count] = await second.sql`select count(*)::int as n from kept`
    expect(count?.n).toBe(6)
    await second.close()
    // Two PGlite starts: ~20 s each on a busy 2-core machine.
  }, 120_000)
})

describe('without a reachable PostgreSQL', () => {
  const unreachable = 'postgres://postgres@127.0.0.1:1/postgres'
  const withEnv = async <T>(env: Record<string, string | undefined>, run: () => Promise<T>) => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
    Object.assign(process.env, env)
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k]
    try {
      return await run()
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    }
  }

  it('fails loudly under CI=true', async () => {
    await withEnv({ TEST_DATABASE_URL: unreachable, CI: 'true' }, async () => {
      await expect(createTestDatabase()).rejects.toThrow(/CI=true and PostgreSQL does not answer/)
    })
  })

  it('falls back to an in-memory PGlite elsewhere', async () => {
    await withEnv({ TEST_DATABASE_URL: unreachable, CI: undefined }, async () => {
      const fallback = await createTestDatabase()
      expect(fallback.embedded).toBe(true)
      expect(await fallback.sql`select 41 + 1 as n`).toEqual([{ n: 42 }])
      await fallback.drop()
    })
  })
})

describe('the query deadline (DB_QUERY_TIMEOUT_MS)', () => {
  it('lets answers within it through, cuts a statement the server stays silent on, and leaves LISTEN alone', async (ctx) => {
    requireRealPostgres(ctx, db)
    const sql = createSql(db.url, { max: 2, timeouts: { connectS: 2, queryMs: 500 } })
    try {
      const received: string[] = []
      await sql.listen('deadline_test', (payload) => received.push(payload))
      await sql`select pg_sleep(0.2)`
      const cut = await sql`select pg_sleep(3)`.catch((error: unknown) => error)
      expect(cut).toBeInstanceOf(DatabaseTimeoutError)
      expect(isDatabaseUnavailable(cut)).toBe(true)
      // The pool reconnects on the next query; the listener, idle for longer than the deadline, still hears.
      await new Promise((resolve) => setTimeout(resolve, 700))
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }])
      await db.sql`select pg_notify('deadline_test', 'still listening')`
      for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(received).toEqual(['still listening'])
    } finally {
      await sql.end({ timeout: 1 })
    }
  })
})
