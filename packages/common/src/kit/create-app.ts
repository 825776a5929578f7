import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import compress from '@fastify/compress'
import rateLimit from '@fastify/rate-limit'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify'
import type { Registry } from 'prom-client'
import {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
} from '../auth/signed-fetch.js'
import type { BaseConfig } from '../config.js'
import type { Sql } from '../db/database.js'
import { TooManyRequestsError } from '../errors.js'
import { type AdmissionSettings, DEFAULT_ADMISSION, installAdmission } from './admission-hooks.js'
import { answerHook, kitHeaders } from './answer-hook.js'
import { corsHeaders, installPreflight } from './cors.js'
import { withFreshUuidExamples, withUsedSecuritySchemes } from './docs-spec.js'
import { answerNodeRefusals, clientErrorHandler, installErrorHandling, sendError } from './error-handler.js'
import { installHealth } from './health.js'
import { DEFAULT_BODY_MAX_DEPTH, installJsonBody } from './json-body.js'
import { type DurationRecorder, installMetrics, recordDuration, UNMATCHED_ROUTE } from './metrics.js'
import { installNotFound } from './not-found.js'
import { oneRequestClass } from './one-request-class.js'
import { requestIdMaker } from './request-id.js'
import { requestLogging } from './request-log.js'
import { recordRoutes } from './route-table.js'
import { installSerialization } from './serialization.js'
import { installSignedFetch } from './signed-fetch-hook.js'
import { installValidation } from './validation.js'

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's Prometheus registry, for a service's own metrics. */
    metrics: Registry
  }
}

export interface CreateAppOptions {
  name: string
  version: string
  description?: string
  sql: Sql
  /** The process logger (`createLogger`); omitted (tests), the app logs nothing. */
  logger?: FastifyBaseLogger
  /** The service's configuration: the kit takes its own settings from it (those below, when not given). */
  config?: BaseConfig
  /** `*` or a comma-separated list of origins. */
  corsOrigins?: string
  /**
   * Headers of the service's own answers that browser code on another origin reads (e.g. a flag the
   * service's client returns); the kit exposes its own (X-Request-Id, ETag, Retry-After) anyway.
   */
  exposeHeaders?: readonly string[]
  bodyLimit?: number
  /** How deep a JSON body may nest objects and arrays; deeper is 400 before it is parsed. */
  bodyMaxDepth?: number
  /** Requests per minute per client IP; 0 turns the limit off. */
  rateLimitMax?: number
  authMaxAgeS?: number
  authRpcUrl?: string | undefined
  /**
   * Admission control of signature verifications and of `heavy` routes' answers (kit/admission.ts). Default:
   * 4 of each at once, 256 waiting for at most 2 s, then 503 with Retry-After: 1.
   */
  admission?: AdmissionSettings
  /** METRICS_PORT: when above 0, `/metrics` is not a route of the app (runService serves it there). */
  metricsPort?: number
  /** Proxies in front of the service, trusted for X-Forwarded-For (0: none). */
  trustProxy?: number
  /** Timeouts and the connection cap (DEFAULT_CONNECTION_LIMITS when not given). */
  connections?: ConnectionLimits
  /** The service's own readiness check (e.g. an index is built). */
  isReady?: () => boolean | Promise<boolean>
  /**
   * Routes that take `Authorization: Bearer <token>`: the OpenAPI document offers the `bearer` scheme,
   * described so (routes name it with `openApiSecurity`), and /docs' Authorize dialog asks for it.
   */
  bearer?: { description: string }
}

/** The names of the security schemes of the OpenAPI document. */
export const SECURITY_SCHEMES = { signed: 'signedFetch', bearer: 'bearer' } as const

/**
 * A route's `schema.security`: the schemes it accepts, any one of them (a route with `auth: 'signed'`
 * gets signed fetch's by itself).
 */
export function openApiSecurity(accepts: { signed?: boolean; bearer?: boolean }): Record<string, string[]>[] {
  const schemes: Record<string, string[]>[] = []
  if (accepts.signed) schemes.push({ [SECURITY_SCHEMES.signed]: [] })
  if (accepts.bearer) schemes.push({ [SECURITY_SCHEMES.bearer]: [] })
  return schemes
}

const ALLOWED_HEADERS = [
  'content-type',
  'authorization',
  'idempotency-key',
  'if-none-match',
  'x-request-id',
  AUTH_TIMESTAMP_HEADER,
  AUTH_METADATA_HEADER,
  ...Array.from({ length: 10 }, (_, i) => `${AUTH_CHAIN_HEADER_PREFIX}${i}`),
]

/** The kit options that come straight from the base configuration. */
export const appOptionsFromConfig = (config: BaseConfig) => ({
  corsOrigins: config.CORS_ORIGINS,
  bodyLimit: config.BODY_LIMIT,
  bodyMaxDepth: config.BODY_MAX_DEPTH,
  rateLimitMax: config.RATE_LIMIT_MAX,
  authMaxAgeS: config.AUTH_MAX_AGE_S,
  authRpcUrl: config.AUTH_RPC_URL,
  admission: {
    verifyConcurrency: config.AUTH_VERIFY_CONCURRENCY,
    heavyConcurrency: config.HEAVY_CONCURRENCY,
    queue: config.ADMISSION_QUEUE,
    maxWaitMs: config.ADMISSION_WAIT_MS,
  },
  trustProxy: Number(config.TRUST_PROXY),
  metricsPort: config.METRICS_PORT,
  connections: {
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: config.MAX_CONNECTIONS,
  },
})

/**
 * What a connection may cost a replica: without these a socket that sends nothing, or a body trickled a
 * byte at a time, is kept for ever, and enough of them take every file descriptor.
 */
export interface ConnectionLimits {
  headersTimeoutMs: number
  requestTimeoutMs: number
  keepAliveTimeoutMs: number
  maxConnections: number
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 8192,
}

/**
 * Node times a request's headers out only once their first byte has come: a connection that never sends
 * one would be kept for ever. One timer per connection (not per request), gone with it.
 */
function closeSilentConnections(server: Server, ms: number) {
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy()
    }, ms).unref()
    socket.once('close', () => clearTimeout(timer))
  })
}

/**
 * A Fastify app built the same way in every service: the shared plugins in order (compression, the kit's
 * answer hook and metrics, errors, validation, serialisation, CORS preflights, rate limit, OpenAPI), health,
 * admission and signed fetch.
 * The service registers its routes on the returned app.
 */
export async function createApp(input: CreateAppOptions): Promise<App> {
  const options = { ...(input.config ? appOptionsFromConfig(input.config) : {}), ...input }
  const limits = options.connections ?? DEFAULT_CONNECTION_LIMITS
  const trustedHops = options.trustProxy ?? 0
  const logging = requestLogging(options.logger)
  let closing = false
  const headers = kitHeaders(corsHeaders(options.corsOrigins ?? '*', options.exposeHeaders), () => closing)
  // Set once the metrics exist (below); Fastify needs its framework-error handler first.
  let unmatched: DurationRecorder = () => {}
  const app = Fastify({
    ...logging.fastify,
    bodyLimit: options.bodyLimit ?? 1_048_576,
    // The `n` proxies in front are trusted, hop by hop from the socket: the client IP is the address the
    // farthest of them saw, never one a client wrote further left in X-Forwarded-For.
    trustProxy: trustedHops > 0 ? (_address: string, hop: number) => hop < trustedHops : false,
    // The caller's X-Request-Id is kept only when it is a short, plain token: it is echoed in the answer and
    // written to every log line of the request, so a long or odd one would be the caller's to fill them with.
    requestIdHeader: false,
    genReqId: requestIdMaker(),
    return503OnClosing: true,
    // Each method's routes compiled into one function when the app is ready (find-my-way's compiler mode):
    // the same matches as the tree walk, without walking it on every request (PERFORMANCE.md).
    routerOptions: { compile: true },
    // URL-level failures (a bad percent escape, an over-long path segment) in the envelope too, with the
    // headers and the duration of any answer: Fastify runs no hook for them.
    frameworkErrors: (error, request, reply) => {
      logging.bind(request, reply)
      headers(request, reply)
      sendError(error, request, reply)
      recordDuration(unmatched, request, reply, undefined)
    },
    clientErrorHandler,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      // Refused by the kit instead, in the envelope (answerNodeRefusals).
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      // How often Node looks for connections past those timeouts (its default, 30 s, would let a silent
      // socket live up to 30 s longer than the timeout says).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
  if (logging.logger) app.log = logging.logger
  oneRequestClass(app)
  logging.install(app)
  app.server.maxConnections = limits.maxConnections
  closeSilentConnections(app.server, limits.headersTimeoutMs)
  answerNodeRefusals(app.server)

  // Fastify reads no body for GET and HEAD: the decompression hook (a preParsing hook @fastify/compress
  // puts on every route) would only look at each request and pass. Before compress's own onRoute hook.
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat()
    if (methods.every((method) => method === 'GET' || method === 'HEAD'))
      (route as { decompress?: boolean }).decompress ??= false
  })
  // First: the kit's answer hook (next) must be every route's last onSend hook, after compression's.
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    // Brotli's default quality (11) costs far more CPU than it saves bytes on JSON answers.
    brotliOptions: { params: { 1: 4 } },
  })
  // Request lines: Fastify writes a request's last line from its end-of-answer event, which it listens for
  // only on routes with an onResponse hook. At a level that shows no request lines, no route has one.
  if (logging.logger?.isLevelEnabled('info')) {
    app.addHook('onResponse', (_request, _reply, done) => done())
  }
  app.addHook('preClose', async () => {
    closing = true
  })
  // Then, so that every route, the kit's own included, ends with it.
  const lastOnSend = answerHook(headers)
  const metrics = installMetrics(app, options.name, {
    ownPort: (options.metricsPort ?? 0) > 0,
    lastOnSend,
  })
  unmatched = metrics.recorder(UNMATCHED_ROUTE)
  app.decorate('metrics', metrics.registry)
  recordRoutes(app)
  installErrorHandling(app)
  installValidation(app)
  installSerialization(app)
  installJsonBody(app, options.bodyMaxDepth ?? DEFAULT_BODY_MAX_DEPTH)
  installPreflight(app, ALLOWED_HEADERS)
  if (options.rateLimitMax && options.rateLimitMax > 0) {
    await app.register(rateLimit, {
      max: options.rateLimitMax,
      timeWindow: '1 minute',
      // Preflights are not counted: a refused one would hide the real answer from the browser.
      allowList: (request) =>
        request.method === 'OPTIONS' || request.url.startsWith('/health/') || request.url === '/metrics',
      errorResponseBuilder: (_request, context) => {
        const retryAfterS = Math.max(1, Math.ceil(context.ttl / 1000))
        return new TooManyRequestsError(
          `Rate limit exceeded: at most ${context.max} requests a minute, retry in ${context.after}`,
          { retryAfterS, data: { limit: context.max, retry_after_s: retryAfterS } },
        )
      },
    })
  }

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: options.name, version: options.version, description: options.description ?? '' },
      components: {
        securitySchemes: {
          [SECURITY_SCHEMES.signed]: {
            type: 'apiKey',
            in: 'header',
            name: `${AUTH_CHAIN_HEADER_PREFIX}0`,
            description:
              `Signed fetch (ADR-44): the headers ${AUTH_CHAIN_HEADER_PREFIX}0..N (the auth chain: the ` +
              `signer, then each link as JSON), ${AUTH_TIMESTAMP_HEADER} (ms) and ${AUTH_METADATA_HEADER} ` +
              `(JSON); the last link signs [method, path, timestamp, metadata].join(':').toLowerCase(), and ` +
              'a signature is good for one request within minutes. "Try it out" cannot sign: send these ' +
              'with @genesis/client or decentraland-crypto-fetch.',
          },
          ...(options.bearer
            ? {
                [SECURITY_SCHEMES.bearer]: {
                  type: 'http',
                  scheme: 'bearer',
                  description: options.bearer.description,
                },
              }
            : {}),
        },
      },
    },
  })
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === 'signed' && !route.schema?.security)
      route.schema = { ...route.schema, security: openApiSecurity({ signed: true }) }
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    transformSpecification: (spec) => withFreshUuidExamples(withUsedSecuritySchemes(structuredClone(spec))),
    transformSpecificationClone: false,
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () =>
    withUsedSecuritySchemes(structuredClone(app.swagger() as Record<string, unknown>)),
  )

  installHealth(app, { sql: options.sql, isReady: options.isReady, isClosing: () => closing })
  const { verification } = installAdmission(app, options.admission ?? DEFAULT_ADMISSION)
  installSignedFetch(app, options.sql, {
    maxAgeS: options.authMaxAgeS ?? 300,
    rpcUrl: options.authRpcUrl,
    admission: verification,
  })
  // Last: the not-found scope takes the hooks registered before it.
  await installNotFound(app, lastOnSend(unmatched))
  return app
}
