import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import { type ChildLoggerOptions, pino } from 'pino'
import { type LazyChildLogger, lazyChildren } from './lazy-logger.js'

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

/**
 * How a request line shows the request, its answer and an error: the fields Fastify's own logger shows
 * (the kit hands Fastify no logger of its own, create-app.ts).
 */
export const REQUEST_SERIALIZERS: NonNullable<ChildLoggerOptions['serializers']> = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: request.url,
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
  err: pino.stdSerializers.err,
}

/** Fastify's logging options for an app of the kit, and the logger to make its `app.log`. */
export interface RequestLogging {
  fastify: {
    logger: false
    logController: LogController
    childLoggerFactory?: (
      none: unknown,
      bindings: Record<string, unknown>,
      options: object,
    ) => FastifyBaseLogger
  }
  logger: LazyChildLogger | undefined
}

/**
 * Fastify gets no logger of its own: with one, it adds and removes two response listeners on every request
 * to time it, which only request lines need (create-app.ts adds them back when the level shows those
 * lines). Each request still logs through the service's logger, every line bound to its request id and
 * made only when one is written, as with Fastify's own.
 */
export function requestLogging(service: FastifyBaseLogger | undefined): RequestLogging {
  const logController = new QuietProbesLogController()
  if (service === undefined) return { fastify: { logger: false, logController }, logger: undefined }
  const logger = lazyChildren(service).child({}, { serializers: REQUEST_SERIALIZERS })
  return {
    fastify: {
      logger: false,
      logController,
      childLoggerFactory: (_none, bindings, options) => logger.child(bindings, options),
    },
    logger,
  }
}
