import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedPostgres {
  url: string
  stop(): Promise<void>
}

/**
 * PGlite served on a loopback socket, so the same `postgres` client code runs against it.
 * `dataDir` undefined keeps the data in memory (used by the test fallback).
 */
export async function startEmbeddedPostgres(dataDir?: string): Promise<EmbeddedPostgres> {
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  const db = await PGlite.create({ dataDir, extensions: { pg_trgm } })
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 })
  await server.start()
  const port = server.getServerConn().split(':').pop()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop()
      await db.close()
    },
  }
}
