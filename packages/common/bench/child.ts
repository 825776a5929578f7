/**
 * A bench's child process, forked by `forkService` (scale.ts): the service it serves runs apart from the
 * load generator's event loop.
 */
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../src/db/database.js'

/** DATABASE_URL, which the parent sets; throws when the script was not forked by `parent` with it. */
export function childDatabaseUrl(parent: string): string {
  const url = process.env.DATABASE_URL
  if (!url || !process.send) throw new Error(`this script runs as a child of ${parent} with DATABASE_URL set`)
  return url
}

/**
 * Serves `app` on an ephemeral loopback port and reports the port to the parent over IPC ({ port });
 * SIGTERM closes the app, then its pool, and exits.
 */
export async function serveToParent(app: FastifyInstance, sql: Sql): Promise<void> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 })
  process.on('SIGTERM', async () => {
    await app.close()
    await sql.end({ timeout: 5 })
    process.exit(0)
  })
}
