import { errorResponses, type RoutePlugin } from '@genesis/common'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Context } from '../../context.js'

const tags = ['atlas']
const Health = Type.Object({ ok: Type.Literal(true), data: Type.Object({ status: Type.String() }) })

/** The answer of one of the service's own health routes, asked in-process. */
async function relay(app: FastifyInstance, reply: FastifyReply, health: string) {
  const answer = await app.inject({ method: 'GET', url: health })
  return reply.code(answer.statusCode).type('application/json; charset=utf-8').send(answer.body)
}

/**
 * atlas-server's liveness and readiness, at its paths: the answers of the service's own /health/live and
 * /health/ready (the database answers, the grid is loaded, not shutting down), so that both always agree.
 */
export const atlasStatusRoutes: RoutePlugin<Context> = async (app) => {
  const routes = [
    ['/ping', '/health/live', 'Live: the process serves HTTP (as /health/live)'],
    ['/ready', '/health/ready', 'Ready for traffic, 503 otherwise (as /health/ready)'],
  ] as const
  for (const [path, health, summary] of routes) {
    app.get(
      path,
      { schema: { tags, summary, response: { 200: Health, ...errorResponses(503) } } },
      (_request, reply) => relay(app, reply, health),
    )
  }
}
