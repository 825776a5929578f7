import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client'

type Label = 'method' | 'route' | 'status_code'

const HELP = 'HTTP request duration in seconds, by method, route and status code'
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/** Records one request's duration under its route's series (by method and status). */
export type DurationRecorder = (method: string, status: number, seconds: number) => void

/** The route label of requests that match no route. */
export const UNMATCHED_ROUTE = 'unmatched'

interface Series {
  method: string
  status: number
  labels: Record<Label, string | number>
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: Float64Array
  sum: number
}

/**
 * The request-duration histogram, exported by prom-client as any other, but recorded without it: its
 * `observe` validates and hashes the labels on every call (PERFORMANCE.md). Here each
 * route gets a recorder when it is registered, so a request only finds its method and status in two
 * small maps.
 */
class RequestDurations extends Histogram<Label> {
  private readonly series: Series[] = []

  recorder(route: string): DurationRecorder {
    const byMethod = new Map<string, Map<number, Series>>()
    // A route's requests mostly get the same answer: its series is the last one, found without the maps.
    let last: Series | undefined
    return (method, status, seconds) => {
      let series = last
      if (series === undefined || series.status !== status || series.method !== method) {
        let byStatus = byMethod.get(method)
        if (byStatus === undefined) {
          byStatus = new Map()
          byMethod.set(method, byStatus)
        }
        series = byStatus.get(status)
        if (series === undefined) {
          const labels = { method, route, status_code: status }
          series = { method, status, labels, counts: new Float64Array(BUCKETS.length + 1), sum: 0 }
          byStatus.set(status, series)
          this.series.push(series)
        }
        last = series
      }
      let bucket = 0
      while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++
      series.counts[bucket]!++
      series.sum += seconds
    }
  }

  /**
   * What prom-client's own get() and the registry's text exposition read (lib/histogram.js): the series
   * in its export shape, labels shared by a series' lines apart from each line's own.
   */
  async getForPromString() {
    const name = 'http_request_duration_seconds'
    const line = (labels: object, sharedLabels: object, value: number, suffix: string) => ({
      labels,
      sharedLabels,
      value,
      metricName: `${name}_${suffix}`,
    })
    const values = this.series.flatMap(({ labels, counts, sum }) => {
      let cumulative = 0
      const buckets = [...BUCKETS, '+Inf'].map((le, i) => {
        cumulative += counts[i]!
        return line({ le }, labels, cumulative, 'bucket')
      })
      return [...buckets, line({}, labels, sum, 'sum'), line({}, labels, cumulative, 'count')]
    })
    return { name, help: HELP, type: 'histogram', values, aggregator: 'sum' }
  }
}

/** The app's metrics: its registry, and a recorder of request durations for a route label of the kit's own. */
export interface AppMetrics {
  registry: Registry
  recorder: (route: string) => DurationRecorder
}

export interface MetricsOptions {
  /** METRICS_PORT is set: `/metrics` is served there (runService), not as a route of the app. */
  ownPort?: boolean
  /** Each route's last onSend hook, made from the recorder of its route (default: `timing`). */
  lastOnSend?: (record: DurationRecorder) => onSendHookHandler
}

/**
 * Prometheus metrics on a registry of this app's own, so several apps can live in one process. `/metrics`
 * is a route of the app unless `ownPort` (METRICS_PORT): then runService serves it on that port alone, which
 * the public address (the Service's http port, the Ingress, the gateway) never reaches. Every route is timed
 * by a hook of its own; requests that match no route are timed by the not-found scope (kit/not-found.ts)
 * under `recorder(UNMATCHED_ROUTE)`, so that no hook runs for every request of every route.
 */
export function installMetrics(
  app: FastifyInstance,
  service: string,
  { ownPort = false, lastOnSend = timing }: MetricsOptions = {},
): AppMetrics {
  const registry = new Registry()
  registry.setDefaultLabels({ service })
  collectDefaultMetrics({ register: registry })
  const durations = new RequestDurations({
    name: 'http_request_duration_seconds',
    help: HELP,
    labelNames: ['method', 'route', 'status_code'],
    buckets: BUCKETS,
    registers: [registry],
  })
  // Each route's own hook knows its route, so that no request has to ask Fastify for it (routeOptions
  // builds an object on every call). Installed before any route is registered, and after every plugin that
  // adds onSend hooks to routes (compression), so that it is a route's last: it runs once per answer, for
  // the answer that is sent.
  app.addHook('onRoute', (route) => {
    const own = route.onSend === undefined ? [] : [route.onSend].flat()
    route.onSend = [...own, lastOnSend(durations.recorder(route.url))]
  })
  if (!ownPort) {
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
      reply.type(registry.contentType).send(await registry.metrics()),
    )
  }
  return { registry, recorder: (route) => durations.recorder(route) }
}

const STARTED = Symbol('started')
type Timed = IncomingMessage & { [STARTED]?: number }

/** Marks when a request began: the kit's request-id maker calls it, the first thing Fastify does with one. */
export function markStarted(raw: IncomingMessage): void {
  ;(raw as Timed)[STARTED] = performance.now()
}

/**
 * Records a request's duration, from its start to its answer handed to the socket; a streamed answer's, to
 * its end. Called from the route's last onSend hook, not from Fastify's onResponse: that is run from two
 * response listeners added and removed on every request (PERFORMANCE.md), while a buffered answer is
 * written in the same turn as this hook, its socket write a few microseconds under the histogram's smallest
 * bucket (1 ms).
 */
export function recordDuration(
  record: DurationRecorder,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): void {
  const started = (request.raw as Timed)[STARTED] ?? performance.now()
  if (isStream(payload)) {
    reply.raw.once('close', () =>
      record(request.method, reply.statusCode, (performance.now() - started) / 1000),
    )
  } else {
    record(request.method, reply.statusCode, (performance.now() - started) / 1000)
  }
}

/** An onSend hook that only records each request's duration (`recordDuration`). */
export const timing =
  (record: DurationRecorder): onSendHookHandler =>
  (request, reply, payload, done) => {
    recordDuration(record, request, reply, payload)
    done(null, payload)
  }

/** A payload Fastify streams: anything but a string, bytes or nothing (those are written at once). */
const isStream = (payload: unknown): boolean =>
  typeof payload === 'object' &&
  payload !== null &&
  !(payload instanceof Uint8Array) &&
  (typeof (payload as { pipe?: unknown }).pipe === 'function' ||
    typeof (payload as { getReader?: unknown }).getReader === 'function')

/** The metrics alone on a port of their own (METRICS_PORT): GET /metrics, 404 for anything else. */
export async function serveMetrics(registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
      response.end('{"ok":false,"error":"Only GET /metrics is served on this port","code":"not_found"}')
      return
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType })
        response.end(text)
      },
      () => {
        response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
        response.end(
          '{"ok":false,"error":"The metrics could not be collected","code":"internal_server_error"}',
        )
      },
    )
  })
  server.headersTimeout = 10_000
  server.requestTimeout = 10_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  return server
}
