/**
 * A bench child process: `claims` (the real service app) or `baseline` (a bare Fastify route doing one
 * INSERT transaction), both on the same `postgres` client settings, listening on an ephemeral loopback port.
 * It reports the port to the parent over IPC. Each runs in its own process so that neither shares an
 * event loop with autocannon.
 */
import { randomUUID } from 'node:crypto'
import { createSql } from '@genesis/common'
import Fastify from 'fastify'
import { childDatabaseUrl, serveToParent } from '../../../packages/common/bench/child.js'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'

const mode = process.argv[2]
const url = childDatabaseUrl('bench/run.ts or bench/scale.ts')
// the service with its own session settings; the baseline with the client's defaults
const sql = createSql(url, mode === 'claims' ? { settings: CLAIMS_DB_SETTINGS } : {})

async function claimsApp() {
  // no logger (silent) and no rate limit, as before
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: process.env.CLAIMS_SIGNER_PRIVATE_KEY,
    CLAIMS_ADMIN_TOKEN: process.env.CLAIMS_ADMIN_TOKEN,
    CLAIM_TTL_S: '3600',
    RATE_LIMIT_MAX: '0',
  })
  return buildApp({ sql, config })
}

async function baselineApp() {
  const app = Fastify({ logger: false })
  app.post('/baseline', async (request, reply) => {
    const [row] = await sql.begin(
      (tx) =>
        tx`insert into bench_baseline (id, body) values (${randomUUID()}, ${JSON.stringify(request.body)}) returning id`,
    )
    return reply.code(201).send({ ok: true, data: row })
  })
  return app
}

await serveToParent(mode === 'claims' ? await claimsApp() : await baselineApp(), sql)
