import type { FastifyInstance } from 'fastify'
import type { Sql } from '../db/database.js'

const READINESS_TIMEOUT_MS = 2000

async function databaseAnswers(sql: Sql): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS)
  })
  try {
    return await Promise.race([sql`select 1`.then(() => true), timeout])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Liveness says the process serves HTTP; readiness says it should get traffic: the database answers,
 * the service's own check passes (e.g. land's index is built) and it is not shutting down.
 */
export function installHealth(
  app: FastifyInstance,
  options: { sql: Sql; isReady?: (() => boolean | Promise<boolean>) | undefined; isClosing: () => boolean },
) {
  app.get('/health/live', { schema: { hide: true } }, async () => ({ ok: true, data: { status: 'live' } }))
  // The probes themselves are logged at debug (an orchestrator, or `pnpm start` waiting for the banner,
  // asks every few hundred milliseconds); what a reader needs is the change: one line when the answer
  // turns, at warn when it turns to not ready.
  let shown: string | undefined
  let wasReady = false
  const note = (state: string) => {
    if (state === shown) return
    const first = shown === undefined
    shown = state
    if (state === 'ready') {
      app.log.info(wasReady ? 'ready again' : 'ready')
      wasReady = true
    } else if (first && state === 'service not ready') app.log.info('not ready yet: starting')
    else app.log.warn(`not ready: ${state}`)
  }
  app.get('/health/ready', { schema: { hide: true } }, async (_request, reply) => {
    const problems: string[] = []
    if (options.isClosing()) problems.push('shutting down')
    else {
      if (!(await databaseAnswers(options.sql))) problems.push('database unreachable')
      if (options.isReady && !(await options.isReady())) problems.push('service not ready')
    }
    note(problems.length === 0 ? 'ready' : problems.join(', '))
    if (problems.length === 0) return { ok: true, data: { status: 'ready' } }
    return reply
      .status(503)
      .send({ ok: false, error: `Not ready: ${problems.join(', ')}`, code: 'service_unavailable' })
  })
}
