/**
 * A child of bench/reads.ts: `service` (the claims app, tsc's output as `pnpm start` runs it), `bare` (a
 * bare Fastify, no plugins, no hooks, no logger, answering the same read by the same code: the operator
 * token compared, the page of rewards read by the service's own query and shown by its own mapping, the
 * envelope written by JSON.stringify) or `kit` (that bare route in the kit's createApp as the service builds
 * it). It reports its port to the parent over IPC.
 */
import { createApp, createSql } from '@genesis/common'
import Fastify, { type FastifyInstance } from 'fastify'
import { childDatabaseUrl, serveToParent } from '../../../packages/common/bench/child.js'

// tsc's output, not tsx's transform of src (whose wrappers run on every closure a request creates)
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href
const { buildApp, SERVICE } = (await import(dist('app.js'))) as typeof import('../src/app.js')
const { loadConfig } = (await import(dist('config.js'))) as typeof import('../src/config.js')
const { CLAIMS_DB_SETTINGS } = (await import(
  dist('db/settings.js')
)) as typeof import('../src/db/settings.js')
const { listRewards, toReward } = (await import(
  dist('db/rewards.js')
)) as typeof import('../src/db/rewards.js')
const { BEARER_DESCRIPTION } = (await import(
  dist('routes/caller.js')
)) as typeof import('../src/routes/caller.js')
const { REPLAYED_HEADER } = (await import(
  dist('routes/claim-transactions.js')
)) as typeof import('../src/routes/claim-transactions.js')
const { userPage } = (await import(
  dist('routes/user-page.js')
)) as typeof import('../src/routes/user-page.js')

const mode = process.argv[2]
const sql = createSql(childDatabaseUrl('bench/reads.ts'), { settings: CLAIMS_DB_SETTINGS })
const token = process.env.CLAIMS_ADMIN_TOKEN ?? ''

const config = loadConfig({
  CLAIMS_SIGNER_PRIVATE_KEY: process.env.CLAIMS_SIGNER_PRIVATE_KEY,
  CLAIMS_ADMIN_TOKEN: token,
  RATE_LIMIT_MAX: '0',
  // request lines off, as in land's bench (the bare route has no logger); errors still logged
  LOG_LEVEL: 'warn',
})

/** The read as a hand-written route answers it. */
function bareRoute(app: FastifyInstance) {
  app.get('/api/rewards', async (request, reply) => {
    if (request.headers.authorization !== `Bearer ${token}`) return reply.code(401).send()
    const query = request.query as { user?: string; limit?: string }
    const page = await userPage(
      { kind: 'admin' },
      { page: 1, limit: Number(query.limit ?? 20), user: query.user },
      (user, p) => listRewards(sql, user, p),
      toReward,
    )
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(page))
  })
  return app
}

const servers: Record<string, () => Promise<FastifyInstance>> = {
  service: () => buildApp({ sql, config }),
  kit: async () =>
    bareRoute(
      await createApp({
        ...SERVICE,
        sql,
        config,
        bearer: { description: BEARER_DESCRIPTION },
        exposeHeaders: [REPLAYED_HEADER],
      }),
    ),
  bare: async () => bareRoute(Fastify({ logger: false })),
}
const server = servers[mode ?? '']
if (!server) throw new Error(`usage: reads-serve.ts ${Object.keys(servers).join('|')}`)
await serveToParent(await server(), sql)
