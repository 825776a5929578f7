import { errorResponses, type RoutePlugin } from '@genesis/common'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Context } from '../../context.js'
import { SELF_ENCODED, sendJson } from '../send.js'

const tags = ['atlas']
const Health = Type.Object({ ok: Type.Literal(true), data: Type.Object({ status: Type.String() }) })

/** The answer of one of the service's own health routes, asked in-process. */
async function relay(app: FastifyInstance, reply: FastifyReply, health: string) {
  const answer = await app.inject({ method: 'GET', url: health })
  return reply.code(answer.statusCode).type('application/json; charset=utf-8').send(answer.body)
}

/** What /health/live answers: a process that answers at all is live. */
const LIVE = JSON.stringify({ ok: true, data: { status: 'live' } })

/**
 * atlas-server's liveness and readiness, at its paths. /ping answers as /health/live does, from a constant
 * (explorers poll it: asking /health/live in-process cost six times a bare answer); /ready relays the
 * service's own /health/ready (the database answers, the grid is loaded, not shutting down), so that both
 * always agree.
 */
export const atlasStatusRoutes: RoutePlugin<Context> = async (app) => {
  const schema = (summary: string) => ({ tags, summary, response: { 200: Health, ...errorResponses(503) } })
  app.get(
    '/ping',
    // A few bytes: nothing for the kit's compression to do.
    { ...SELF_ENCODED, schema: schema('Live: the process serves HTTP (as /health/live)') },
    (_request, reply) => {
      sendJson(reply, LIVE)
    },
  )
  app.get(
    '/ready',
    { ...SELF_ENCODED, schema: schema('Ready for traffic, 503 otherwise (as /health/ready)') },
    (_request, reply) => relay(app, reply, '/health/ready'),
  )
}
