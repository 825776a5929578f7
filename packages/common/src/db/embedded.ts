import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { setFlagsFromString } from 'node:v8'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

/** The port number in the socket's name (`.s.PGSQL.<port>`), as libpq and postgres.js spell it. */
const EMBEDDED_PORT = 5432

/** A URL for a server on a Unix socket, in libpq's form: the socket's directory as the `host` parameter. */
const unixSocketUrl = (socketDir: string) =>
  `postgres://postgres@localhost:${EMBEDDED_PORT}/postgres?host=${encodeURIComponent(socketDir)}`

export interface EmbeddedPostgres {
  url: string
  stop(): Promise<void>
}

/**
 * The lock of an embedded database: a file beside its directory (`<dataDir>.lock`, not inside: the
 * directory is PostgreSQL's own) holding the pid of the process that has it open.
 */
export const embeddedLockFile = (dataDir: string) => `${resolve(dataDir)}.lock`

/** Directories this process has open (a pid alone cannot tell two opens in one process apart). */
const openHere = new Set<string>()

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The live process that has the embedded database in `dataDir` open, or null when none has. */
export function embeddedHolder(dataDir: string): number | null {
  let holder: number
  try {
    holder = Number.parseInt(readFileSync(embeddedLockFile(dataDir), 'utf8'), 10)
  } catch {
    return null
  }
  return Number.isInteger(holder) && holder > 0 && alive(holder) ? holder : null
}

/** Whether `dataDir` holds a database cluster already (PGlite's initdb has run there). */
export const hasEmbeddedCluster = (dataDir: string) => existsSync(join(dataDir, 'PG_VERSION'))

/**
 * Creates the database cluster in `dataDir` and closes it: the slow part of a first start (initdb), done
 * once, so that a copy of the directory can serve another service's first start.
 */
export async function createEmbeddedCluster(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true })
  const unlock = lockEmbeddedDataDir(dataDir)
  try {
    const db = await PGlite.create({ dataDir, extensions: { pg_trgm } })
    await db.close()
  } finally {
    unlock()
  }
}

/**
 * Takes the directory for this process (the returned function gives it back), or refuses: PGlite is a single-process database, and a second
 * process opening the same files would corrupt them. A lock left by a process that is gone is taken over.
 */
export function lockEmbeddedDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir)
  const file = embeddedLockFile(dir)
  for (let attempt = 0; ; attempt++) {
    if (openHere.has(dir)) throw embeddedInUse(dir, process.pid)
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' })
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error
    }
    const holder = Number.parseInt(readFileSync(file, 'utf8'), 10)
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder))
      throw embeddedInUse(dir, holder)
    // Stale: its process is gone (or had this pid and is gone too).
    unlinkSync(file)
  }
  openHere.add(dir)
  return () => {
    openHere.delete(dir)
    try {
      if (Number.parseInt(readFileSync(file, 'utf8'), 10) === process.pid) unlinkSync(file)
    } catch {}
  }
}

/** A second process (or a second open in this one) asked for an embedded database already open. */
export class EmbeddedDatabaseInUse extends Error {
  override readonly name = 'EmbeddedDatabaseInUse'
}

const embeddedInUse = (dir: string, pid: number) =>
  new EmbeddedDatabaseInUse(
    `The embedded database in ${dir} is already open by process ${pid}${pid === process.pid ? ' (this one)' : ''}: ` +
      'it belongs to one process. Give each service its own DATA_DIR (pnpm start gives each DATA_DIR/<service>), ' +
      'stop the other process, or set DATABASE_URL.',
  )

/**
 * PostgreSQL's shared buffers live inside PGlite's WebAssembly memory, which never shrinks and is touched
 * whole at start: the default 128MB would be resident for the life of the process. A service's embedded
 * database is small and its files sit in the operating system's page cache anyway, so a few megabytes of
 * buffers cost no speed.
 */
const EMBEDDED_SHARED_BUFFERS = '16MB'

/**
 * PGlite's WebAssembly runs on V8's baseline compiler only. V8 otherwise recompiles its hot functions
 * (PostgreSQL's parser and executor are huge) with its optimising compiler on background threads, each
 * compilation taking memory that the threads' allocator keeps for good, plus a pause on the queries that
 * trigger it; an embedded database's queries are small, and the baseline code serves them nearly as well. Set before PGlite compiles its module (the flag is read then); the
 * process runs no other WebAssembly.
 */
function useBaselineWasmCompiler(): void {
  setFlagsFromString('--liftoff-only')
}

/**
 * Creates the database files of a new data directory in a short-lived process of its own. PGlite's
 * `initdb` runs a second WebAssembly PostgreSQL with large memories of its own: in the service's process
 * they would be garbage only a full collection frees, and part of them would stay with the process's
 * allocator for good (a first start then stayed larger than any later one).
 */
async function initialiseInChild(dataDir: string): Promise<void> {
  const script = `const { PGlite } = await import('@electric-sql/pglite')
const db = await PGlite.create({ dataDir: ${JSON.stringify(resolve(dataDir))} })
await db.close()`
  // from this module's directory, so that the child finds the PGlite this package depends on
  const cwd = fileURLToPath(new URL('.', import.meta.url))
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    timeout: 120_000,
  })
}

/**
 * PGlite served on a Unix socket, so the same `postgres` client code runs against it. PGlite asks no
 * password (any user is its superuser), so who may connect is decided by the file system: the socket
 * lives in a directory of its own that only this account may enter (mkdtemp makes it 0700), never on a
 * TCP port another account of the machine could reach. The directory is short and in the system's
 * temporary directory, as a socket's path is limited to about 100 bytes, and removed at stop.
 * `dataDir` undefined keeps the data in memory (used by the test fallback); a directory already open by
 * another process (or another start in this one) is refused.
 */
export async function startEmbeddedPostgres(dataDir?: string): Promise<EmbeddedPostgres> {
  let unlock = () => {}
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true })
    unlock = lockEmbeddedDataDir(dataDir)
  }
  try {
    useBaselineWasmCompiler()
    if (dataDir && !hasEmbeddedCluster(dataDir)) await initialiseInChild(dataDir)
    const db = await PGlite.create({
      dataDir,
      extensions: { pg_trgm },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
    })
    const socketDir = mkdtempSync(join(tmpdir(), 'genesis-pglite-'))
    const server = new PGLiteSocketServer({
      db,
      path: join(socketDir, `.s.PGSQL.${EMBEDDED_PORT}`),
      maxConnections: 32,
    })
    try {
      await server.start()
    } catch (error) {
      await db.close()
      rmSync(socketDir, { recursive: true, force: true })
      throw error
    }
    return {
      url: unixSocketUrl(socketDir),
      stop: async () => {
        try {
          await server.stop()
          await db.close()
        } finally {
          rmSync(socketDir, { recursive: true, force: true })
          unlock()
        }
      },
    }
  } catch (error) {
    unlock()
    throw error
  }
}
