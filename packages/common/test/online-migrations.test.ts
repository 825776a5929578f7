import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSql, migrate, onlineStatements } from '../src/index.js'
import { createTestDatabase, requireRealPostgres } from '../src/testing/index.js'

/** A migrations folder: each entry `{ online?: true, sql }` becomes NNNNN_step/online.sql or index.sql. */
function migrationsOf(...steps: { sql: string; online?: boolean }[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'genesis-migrations-'))
  steps.forEach((step, i) => {
    const folder = join(dir, `${String(i + 1).padStart(5, '0')}_step`)
    mkdirSync(folder)
    writeFileSync(join(folder, step.online ? 'online.sql' : 'index.sql'), step.sql)
  })
  return dir
}

const populated = (rows: number) => ({
  sql: `create table notes (id bigint primary key, v int not null);
        insert into notes select n, n % 1000 from generate_series(1, ${rows}) as n;`,
})

const indexState = async (sql: ReturnType<typeof createSql>, name: string) => {
  const [row] = await sql<{ valid: boolean }[]>`
    select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`
  return row === undefined ? 'missing' : row.valid ? 'valid' : 'invalid'
}

describe('online migrations (online.sql)', () => {
  it('run outside a transaction, statement by statement, in order with the transactional ones', async (ctx) => {
    const db = await createTestDatabase()
    try {
      requireRealPostgres(ctx, db)
      const dir = migrationsOf(
        populated(20_000),
        {
          online: true,
          sql: `-- built while the table takes writes
create index concurrently if not exists notes_v on notes (v);
update notes set v = v + 1 where id <= 10;
`,
        },
        { sql: 'insert into notes values (0, -1);' },
      )
      await migrate(db.sql, dir)
      await migrate(db.sql, dir)
      expect(await indexState(db.sql, 'notes_v')).toBe('valid')
      const applied = await db.sql`select migration_id from migrations order by migration_id`
      expect(applied.map((r) => r.migration_id)).toEqual([1, 2, 3])
      const [row] = await db.sql`select count(*)::int as n, sum(v)::int as s from notes where id <= 10`
      // ids 1..10 held 1..10 and were raised once (2..11), then the third migration added -1
      expect(row).toEqual({ n: 11, s: 65 - 1 })
    } finally {
      await db.drop()
    }
  })

  it('lets replicas that start together wait for one building an index concurrently, without a deadlock', async (ctx) => {
    const db = await createTestDatabase()
    // three replicas, each with its own pool
    const replicas = Array.from({ length: 3 }, () => createSql(db.url, { max: 2 }))
    try {
      requireRealPostgres(ctx, db)
      await migrate(db.sql, migrationsOf(populated(300_000)))
      const dir = migrationsOf(populated(300_000), {
        online: true,
        sql: 'create index concurrently if not exists notes_v on notes (v);\ncreate index concurrently if not exists notes_v_id on notes (v, id);\n',
      })
      await Promise.all(replicas.map((sql) => migrate(sql, dir)))
      expect(await indexState(db.sql, 'notes_v')).toBe('valid')
      expect(await indexState(db.sql, 'notes_v_id')).toBe('valid')
    } finally {
      await Promise.all(replicas.map((sql) => sql.end({ timeout: 5 })))
      await db.drop()
    }
  }, 120_000)

  it('drops an index an earlier attempt left invalid and builds it again', async (ctx) => {
    const db = await createTestDatabase()
    try {
      requireRealPostgres(ctx, db)
      const dir = migrationsOf(
        { sql: 'create table t (v int); insert into t values (1), (1), (2);' },
        { online: true, sql: 'create unique index concurrently if not exists t_v on t (v);\n' },
      )
      await expect(migrate(db.sql, dir)).rejects.toThrow(/could not create unique index/)
      expect(await indexState(db.sql, 't_v')).toBe('invalid')
      await db.sql`delete from t where ctid = (select min(ctid) from t where v = 1)`
      await migrate(db.sql, dir)
      expect(await indexState(db.sql, 't_v')).toBe('valid')
      const applied = await db.sql`select migration_id from migrations order by migration_id`
      expect(applied.map((r) => r.migration_id)).toEqual([1, 2])
    } finally {
      await db.drop()
    }
  })

  it('are split at a semicolon ending a line, comments dropped, and refuse $$ bodies', () => {
    expect(
      onlineStatements(
        '-- a comment\ncreate index concurrently a on t (x);\n\ndrop index concurrently if exists b;  \n',
      ),
    ).toEqual(['create index concurrently a on t (x)', 'drop index concurrently if exists b'])
    expect(() => onlineStatements('do $$ begin end $$;\n')).toThrow(/no \$\$ bodies/)
  })
})
