/**
 * A child of bench/reads.ts: `service` (the collections app, tsc's output as `pnpm start` runs it), `bare`
 * (a bare Fastify, no plugins, no hooks, no logger, answering the same read by the same code: the signed
 * request verified by common's verifySignedFetch, the collection read by the service's own query, the
 * caller's roles and the full view by its own functions, the envelope written by JSON.stringify) or `kit`
 * (that bare route in the kit's createApp as the service builds it). It reports its port to the parent
 * over IPC.
 */
import { createApp, createSql, ok, signedPath, verifySignedFetch } from '@genesis/common'
import Fastify, { type FastifyInstance } from 'fastify'
import { childDatabaseUrl, serveToParent } from '../../../packages/common/bench/child.js'

// tsc's output, not tsx's transform of src (whose wrappers run on every closure a request creates)
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href
const { buildApp, SERVICE } = (await import(dist('app.js'))) as typeof import('../src/app.js')
const { loadConfig } = (await import(dist('config.js'))) as typeof import('../src/config.js')
const { COLLECTIONS_DB_SETTINGS } = (await import(
  dist('db/settings.js')
)) as typeof import('../src/db/settings.js')
const { findCollection } = (await import(
  dist('db/collections.js')
)) as typeof import('../src/db/collections.js')
const { roles } = (await import(dist('domain/guards.js'))) as typeof import('../src/domain/guards.js')
const { seesFullView } = (await import(dist('domain/access.js'))) as typeof import('../src/domain/access.js')
const { fullView } = (await import(dist('domain/views.js'))) as typeof import('../src/domain/views.js')

const mode = process.argv[2]
const sql = createSql(childDatabaseUrl('bench/reads.ts'), { settings: COLLECTIONS_DB_SETTINGS })
// request lines off, as in land's bench (the bare route has no logger); errors still logged. The headers
// are signed once and the run outlasts the default five minutes of a signature's age (the check's cost
// does not depend on it).
const config = loadConfig({ RATE_LIMIT_MAX: '0', LOG_LEVEL: 'warn', AUTH_MAX_AGE_S: '3600' })

/** The read as a hand-written route answers it. */
function bareRoute(app: FastifyInstance) {
  const access = { committee: new Set<string>(), config, now: () => new Date(), chain: null }
  app.get('/v1/collections/:id', async (request, reply) => {
    const signer = await verifySignedFetch(
      { method: request.method, path: signedPath(request.url), headers: request.headers, client: request.ip },
      { maxAgeS: config.AUTH_MAX_AGE_S },
    )
    const row = await findCollection(sql, (request.params as { id: string }).id)
    if (!row || !seesFullView(roles(access, signer.address, row))) return reply.code(404).send()
    return reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(ok(fullView(row, config.LOCK_TTL_S, access.now()))))
  })
  return app
}

const servers: Record<string, () => Promise<FastifyInstance>> = {
  service: () => buildApp({ sql, config }),
  kit: async () => bareRoute(await createApp({ ...SERVICE, sql, config })),
  bare: async () => bareRoute(Fastify({ logger: false })),
}
const server = servers[mode ?? '']
if (!server) throw new Error(`usage: reads-serve.ts ${Object.keys(servers).join('|')}`)
await serveToParent(await server(), sql)
