// Who may reach the embedded database: PGlite asks no password, so another account of the machine must not
// be able to reach its socket at all.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'
import { createSql, startEmbeddedPostgres } from '../src/index.js'

const run = promisify(execFile)
const scratch = mkdtempSync(join(tmpdir(), 'genesis-embedded-access-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Another account than the one running the tests, when there is one to switch to (root can). */
const other = process.getuid?.() === 0 ? 'nobody' : undefined

/** Tries the PostgreSQL startup from `user`'s account: 'connected', or the error code the system gave. */
async function connectAs(user: string, socketPath: string): Promise<string> {
  const script = `const s = require('node:net').connect(${JSON.stringify(socketPath)});
    s.on('connect', () => { console.log('connected'); s.destroy() });
    s.on('error', (e) => console.log(e.code))`
  const { stdout } = await run('runuser', ['-u', user, '--', process.execPath, '-e', script])
  return stdout.trim()
}

it('serves on a Unix socket in a directory no other account may enter, removed at stop', async () => {
  const pg = await startEmbeddedPostgres(join(scratch, 'pglite'))
  const url = new URL(pg.url)
  const socketDir = url.searchParams.get('host') ?? ''
  const socketPath = join(socketDir, '.s.PGSQL.5432')
  const sql = createSql(pg.url, { max: 1 })
  try {
    expect(socketDir.startsWith('/')).toBe(true)
    expect(existsSync(socketPath)).toBe(true)
    expect(statSync(socketDir).mode & 0o777).toBe(0o700)
    expect((await sql`select current_user as who`)[0]?.who).toBe('postgres')
    if (other) {
      // the same socket, from another account: refused by the file system before PostgreSQL sees anything
      expect(await connectAs(other, socketPath)).toBe('EACCES')
      // and this account still gets in
      expect(await connectAs('root', socketPath)).toBe('connected')
    } else {
      console.warn('Skipped the other-account check: it needs root to switch accounts')
    }
  } finally {
    await sql.end()
    await pg.stop()
  }
  expect(existsSync(dirname(socketPath))).toBe(false) // removed at stop
})
