import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/** The kit's health probes: polled every few seconds by an orchestrator, they would drown the requests that matter. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/health/live', '/health/ready'])

// From the URL rather than `routeOptions`, which builds an object of the route's options on every call.
const isProbe = (request: FastifyRequest) => {
  const url = request.url
  const query = url.indexOf('?')
  return PROBE_PATHS.has(query === -1 ? url : url.slice(0, query))
}

/**
 * Fastify's request lines, with the health probes moved from info down to debug: a terminal at the default
 * level shows the requests people send. A probe that fails (a 5xx, or an error) keeps its usual level.
 */
export class QuietProbesLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!isProbe(request)) super.incomingRequest(request, reply)
    else if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error || reply.statusCode >= 500 || !isProbe(request)) {
      super.requestCompleted(error, request, reply)
    } else if (!this.isLogDisabled(request)) {
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
    }
  }
}
