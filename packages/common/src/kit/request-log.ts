import {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify'
import { type ChildLoggerOptions, pino } from 'pino'
import { type LazyChildLogger, lazyChildren } from './lazy-logger.js'
import { requestPrototypes } from './one-request-class.js'

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
 * usual production setting is info, a benchmark's warn) a request asks `mayLogInfo` and logs nothing:
 * asking its own logger would make one for every request.
 */
export class QuietProbesLogController extends LogController {
  constructor(private readonly mayLogInfo: () => boolean = () => true) {
    super()
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!this.mayLogInfo() || !logsInfo(request.log)) return
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
  fastify: { logger: false; logController: LogController }
  logger: LazyChildLogger | undefined
  /** Gives every request of `app` (just made with `fastify`) its logger; once, before routes are added. */
  install(app: FastifyInstance): void
  /**
   * Gives its logger to a request Fastify made of its base classes, not the app's: those of its
   * framework-error handler (a URL it cannot route), which `install` does not reach.
   */
  bind(request: FastifyRequest, reply: FastifyReply): void
}

/** Where a request keeps the logger it made on its first line. */
const REQUEST_LOGGER = Symbol('genesis.requestLogger')

type LoggingRequest = FastifyRequest & { [REQUEST_LOGGER]?: FastifyBaseLogger }

/**
 * Fastify gets no logger of its own: with one, it adds and removes two response listeners on every request
 * to time it, which only request lines need (create-app.ts adds them back when the level shows those
 * lines); and with a child logger factory of the kit's, it would call it and check the child it returns on
 * every request. Instead `request.log` (and `reply.log`) is a property of the app's request class that
 * makes the request's logger when something first logs through it: the service's logger, every line bound
 * to the request id (`reqId`, as Fastify's own) and at the route's `logLevel` when it has one. A request
 * that logs nothing costs nothing; Fastify's own assignment of its silent logger is ignored.
 */
export function requestLogging(service: FastifyBaseLogger | undefined): RequestLogging {
  const logger =
    service === undefined ? undefined : lazyChildren(service).child({}, { serializers: REQUEST_SERIALIZERS })
  // Whether any request may write an info line: the service's level, or a route's own `logLevel` below it.
  let routesLoggingInfo = 0
  const mayLogInfo = () => routesLoggingInfo > 0 || logger?.isLevelEnabled('info') === true
  const requestLogger = (parent: LazyChildLogger, id: string, level: string | undefined) =>
    parent.child({ reqId: id }, level ? { level } : {})
  const install = (app: FastifyInstance) => {
    if (logger === undefined) return
    app.addHook('onRoute', (route) => {
      if (route.logLevel !== undefined && ['info', 'debug', 'trace'].includes(route.logLevel))
        routesLoggingInfo++
    })
    const prototypes = requestPrototypes(app)
    Object.defineProperty(prototypes.request, 'log', {
      get(this: LoggingRequest): FastifyBaseLogger {
        let log = this[REQUEST_LOGGER]
        if (log === undefined) {
          log = requestLogger(logger, this.id, this.routeOptions.logLevel)
          this[REQUEST_LOGGER] = log
        }
        return log
      },
      set() {},
    })
    Object.defineProperty(prototypes.reply, 'log', {
      get(this: FastifyReply): FastifyBaseLogger {
        return this.request.log
      },
      set() {},
    })
  }
  const bind = (request: FastifyRequest, reply: FastifyReply) => {
    if (logger === undefined) return
    request.log = requestLogger(logger, request.id, undefined)
    reply.log = request.log
  }
  return {
    fastify: { logger: false, logController: new QuietProbesLogController(mayLogInfo) },
    logger,
    install,
    bind,
  }
}
