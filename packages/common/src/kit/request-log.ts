import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/** The kit's health probes: polled every few seconds by an orchestrator, they would drown the requests that matter. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/health/live', '/health/ready'])

// From the URL rather than `routeOptions`, which builds an object of the route's options on every call.
const isProbe = (request: FastifyRequest) => {
  const url = request.url
  const query = url.indexOf('?')
  return PROBE_PATHS.has(query === -1 ? url : url.slice(0, query))
}

type LevelAware = { isLevelEnabled?(level: string): boolean }

/** Whether a request's logger writes `info` lines: below it, request lines cost no more than this question. */
const logsInfo = (log: unknown) => (log as LevelAware).isLevelEnabled?.('info') !== false

/**
 * Fastify's request lines, with the health probes moved from info down to debug: a terminal at the default
 * level shows the requests people send. A not-ready answer is logged once when readiness changes
 * (health.ts), not once per probe; a probe that throws keeps its usual level. At a level above info (the
 * usual production setting is info, a benchmark's warn) a request asks one question and logs nothing.
 */
export class QuietProbesLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!logsInfo(request.log)) return
    if (!isProbe(request)) super.incomingRequest(request, reply)
    else if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) super.requestCompleted(error, request, reply)
    else if (!logsInfo(reply.log)) return
    else if (!isProbe(request)) super.requestCompleted(error, request, reply)
    else if (!this.isLogDisabled(request)) {
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
    }
  }
}
