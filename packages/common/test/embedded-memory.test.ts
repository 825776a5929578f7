import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createSql, startEmbeddedPostgres } from '../src/index.js'

/*
 * What an embedded database costs the process that serves it. A new data directory's files are made by
 * PGlite's initdb, a second WebAssembly PostgreSQL whose memories (hundreds of megabytes) stayed in the
 * service's process until a full collection, part of them for good: it now runs in a process of its own.
 * And PostgreSQL's shared buffers, inside the WebAssembly memory and touched whole at start, are kept small.
 */
const scratch = mkdtempSync(join(tmpdir(), 'genesis-embedded-memory-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const MiB = 1024 * 1024

it('creates a new database in another process, then serves it with small shared buffers', async () => {
  const dir = join(scratch, 'pglite')
  const pg = await startEmbeddedPostgres(dir)
  // initdb's memories never lived here (they were ~650 MiB of external memory right after a start)
  expect(process.memoryUsage().external).toBeLessThan(300 * MiB)
  const sql = createSql(pg.url, { max: 1 })
  try {
    expect((await sql`show shared_buffers`)[0]?.shared_buffers).toBe('16MB')
    await sql`create table kept (v text)`
    await sql`insert into kept values ('there')`
  } finally {
    await sql.end()
    await pg.stop()
  }
  // and a later start opens the same files
  const again = await startEmbeddedPostgres(dir)
  const sql2 = createSql(again.url, { max: 1 })
  try {
    expect(await sql2`select v from kept`).toEqual([{ v: 'there' }])
  } finally {
    await sql2.end()
    await again.stop()
  }
}, 120_000)
