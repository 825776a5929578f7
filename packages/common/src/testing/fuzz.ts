import { randomUUID } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { type RouteEntry, routesOf } from '../kit/route-table.js'

/**
 * Bad requests of every class an outside fuzz run sends, generated for every route of an app from its
 * route table: malformed or odd path segments, integers in other notations, over-long values, repeated
 * query parameters, bodies that are not JSON or not objects, wrong types everywhere, oversized arrays,
 * deep nesting and unknown fields. Bounded: a few dozen requests per route.
 */
export interface FuzzRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string
  /** The route it aims at, for the failure report. */
  route: string
  /** A request no route may accept (an integer in another notation than plain decimal). */
  mustRefuse?: boolean
}

export interface FuzzOptions {
  /** Headers for a request (e.g. signed fetch, a bearer token); the path is the URL as sent. */
  headersFor?: (route: RouteEntry, method: string, path: string) => Record<string, string>
  /** Routes to leave out, by `METHOD url` (e.g. a route that is slow by design). */
  skip?: string[]
  /** The app's default body limit, for the oversized bodies of routes without one of their own. */
  bodyLimit?: number
}

export interface FuzzReport {
  sent: number
  /** Requests sent per status, to show which paths were exercised. */
  statuses: Record<number, number>
  /** Each answer that broke a rule: a 5xx, an answer outside the envelope, an error answer too large. */
  failures: string[]
}

/** An error answer stays this small, whatever the request. */
export const MAX_ERROR_BYTES = 8192

/** Malformed percent-encoding, a NUL byte and a quoted SQL fragment. */
export const BAD_ENCODINGS = ['%zz', '%00', '%27%3B--']
/** Integers in notations no route takes (hexadecimal, exponent, padded, signed, decimal), negative, huge. */
export const BAD_INTEGERS = ['0x10', '1e1', '1e2', '%201', '%2B1', '5.0', '-1', '99999999999999999999']

const SEGMENTS = [
  ...BAD_ENCODINGS,
  '%c0%ae%c0%ae%c0%af',
  '%ff%fe',
  'a'.repeat(10_000),
  '%F0%9F%98%80',
  ...BAD_INTEGERS,
  '..',
]
/** Integers in notations the validator's coercion would read as numbers; every route must refuse them. */
const NOT_DECIMAL = new Set(['0x10', '1e1', '1e2', '%201', '%2B1', '5.0'])
const QUERY_VALUES = [
  '0x10',
  '1e1',
  '%201',
  '%2B1',
  '5.0',
  '-1',
  '',
  '%zz',
  '%00',
  'x'.repeat(3000),
  '99999999999999999999',
  '1,2,3',
]

type JsonSchema = {
  type?: string | string[]
  anyOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  format?: string
  pattern?: string
  examples?: unknown[]
}

/** A plausible path value, so that the other segments are the ones on trial. */
function plausible(schema: JsonSchema | undefined): string {
  if (!schema) return '1'
  if (schema.examples?.[0] !== undefined) return encodeURIComponent(String(schema.examples[0]))
  if (schema.type === 'integer' || schema.type === 'number') return '1'
  if (schema.format === 'uuid') return randomUUID()
  if (schema.pattern?.includes('{40}')) return `0x${'ab'.repeat(20)}`
  if (schema.pattern?.includes('{64}')) return `0x${'ab'.repeat(32)}`
  return 'a'
}

const paramNames = (url: string) => [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!)

function fillPath(url: string, params: JsonSchema | undefined, override?: [string, string]): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    override && override[0] === name ? override[1] : plausible(params?.properties?.[name]),
  )
}

/** Bodies of every bad shape for one route's body schema, sized from its body limit. */
function badBodies(body: JsonSchema | undefined, limit: number): Array<[string, string]> {
  const json = 'application/json'
  const bodies: Array<[string, string]> = [
    [json, '{"a":'],
    [json, 'null'],
    [json, '[]'],
    [json, '"text"'],
    [json, '1'],
    [json, '{}'],
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'a=1&b=2'],
    [json, `${'['.repeat(20_000)}${']'.repeat(20_000)}`],
    [json, JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])))],
    [json, JSON.stringify({ x: 'y'.repeat(limit + 1) })],
  ]
  const properties = Object.entries(body?.properties ?? {})
  if (properties.length === 0) return bodies
  const each = (value: unknown) => Object.fromEntries(properties.map(([name]) => [name, value]))
  bodies.push([json, JSON.stringify(each(1))], [json, JSON.stringify(each({}))])
  bodies.push([json, JSON.stringify(each([]))], [json, JSON.stringify(each('\u0000'))])
  bodies.push([json, JSON.stringify(each('x'.repeat(100_000)))])
  // Arrays of numbers filling most of the body limit, where strings or objects are expected.
  const count = Math.floor((limit * 0.9) / 2 / Math.max(1, properties.length))
  const numbers = `[${Array.from({ length: count }, () => '1').join(',')}]`
  const arrays = properties.filter(([, schema]) => schema.type === 'array').map(([name]) => name)
  for (const name of arrays) {
    bodies.push([json, `{${properties.map(([p]) => `"${p}":${p === name ? numbers : '1'}`).join(',')}}`])
  }
  return bodies
}

/** Every fuzz request for one route. */
function requestsFor(route: RouteEntry, options: FuzzOptions): FuzzRequest[] {
  const schema = (route.schema ?? {}) as { params?: JsonSchema; querystring?: JsonSchema; body?: JsonSchema }
  const requests: FuzzRequest[] = []
  const label = `${route.method} ${route.url}`
  const add = (
    url: string,
    extra: { headers?: Record<string, string>; payload?: string; mustRefuse?: boolean } = {},
  ) => {
    const path = url.split('?', 1)[0] ?? url
    requests.push({
      method: route.method,
      url,
      route: label,
      ...(extra.mustRefuse ? { mustRefuse: true } : {}),
      headers: { ...options.headersFor?.(route, route.method, path), ...extra.headers },
      ...(extra.payload === undefined ? {} : { payload: extra.payload }),
    })
  }
  const base = fillPath(route.url, schema.params)
  const isInteger = (part: JsonSchema | undefined, name: string) => {
    const property = part?.properties?.[name]
    return property?.type === 'integer' || !!property?.anyOf?.some((s) => s.type === 'integer')
  }
  for (const name of paramNames(route.url)) {
    const integer = isInteger(schema.params, name)
    for (const segment of SEGMENTS) {
      add(fillPath(route.url, schema.params, [name, segment]), {
        mustRefuse: integer && NOT_DECIMAL.has(segment),
      })
    }
  }
  const queryNames = Object.keys(schema.querystring?.properties ?? {})
  for (const name of queryNames) {
    const integer = isInteger(schema.querystring, name)
    for (const value of QUERY_VALUES) {
      add(`${base}?${name}=${value}`, { mustRefuse: integer && NOT_DECIMAL.has(value) })
    }
    add(`${base}?${Array.from({ length: 30 }, (_, i) => `${name}=${i}`).join('&')}`)
  }
  add(`${base}?%zz=1`)
  add(`${base}?${Array.from({ length: 200 }, (_, i) => `unknown${i}=1`).join('&')}`)
  if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method)) {
    const limit = route.bodyLimit ?? options.bodyLimit ?? 1_048_576
    for (const [contentType, payload] of badBodies(schema.body, limit)) {
      add(base, { headers: { 'content-type': contentType }, payload })
    }
  }
  return requests
}

/** Every fuzz request for every route of the app (HEAD, OPTIONS and catch-all routes aside). */
export function fuzzRequests(app: FastifyInstance, options: FuzzOptions = {}): FuzzRequest[] {
  const skip = new Set(options.skip ?? [])
  const routes = routesOf(app)
    .filter((route) => route.method !== 'HEAD' && route.method !== 'OPTIONS' && !route.url.includes('*'))
    .filter((route) => !skip.has(`${route.method} ${route.url}`))
  // A method no route of a path takes (Fastify's 404, in the envelope too).
  const unrouted = [...new Set(routes.map((route) => route.url))]
    .filter((url) => !routes.some((route) => route.url === url && route.method === 'PATCH'))
    .map((url) => ({ method: 'PATCH', url: fillPath(url, undefined), headers: {}, route: `PATCH ${url}` }))
  return [...routes.flatMap((route) => requestsFor(route, options)), ...unrouted]
}

/** What is wrong with an answer, if anything: a 5xx, an answer outside the envelope, a large error. */
export function answerProblem(
  response: LightMyRequestResponse,
  request?: Pick<FuzzRequest, 'mustRefuse'>,
): string | undefined {
  const status = response.statusCode
  if (status >= 500) return `${status} ${response.body.slice(0, 200)}`
  if (request?.mustRefuse && status < 400) return `${status}: an integer not in plain decimal was accepted`
  const type = String(response.headers['content-type'] ?? '')
  // Successes are the routes' own business (an API envelope, an OpenAPI document, a PNG).
  if (status < 400) return undefined
  if (!type.startsWith('application/json')) return `${status} with content-type "${type}"`
  let body: { ok?: unknown; error?: unknown; code?: unknown }
  try {
    body = JSON.parse(response.body)
  } catch {
    return `${status} whose body is not JSON: ${response.body.slice(0, 200)}`
  }
  if (body.ok !== false || typeof body.error !== 'string' || typeof body.code !== 'string') {
    return `${status} outside the envelope: ${response.body.slice(0, 200)}`
  }
  if (!/^[a-z_]+$/.test(body.code)) return `${status} with a framework code ${body.code}`
  if (response.rawPayload.length > MAX_ERROR_BYTES) {
    return `${status} error answer of ${response.rawPayload.length} bytes`
  }
  return undefined
}

/** Sends every fuzz request to the app (a few at a time) and reports each rule broken. */
export async function fuzzApp(app: FastifyInstance, options: FuzzOptions = {}): Promise<FuzzReport> {
  const requests = fuzzRequests(app, options)
  const failures: string[] = []
  const statuses: Record<number, number> = {}
  const CONCURRENCY = 8
  for (let i = 0; i < requests.length; i += CONCURRENCY) {
    await Promise.all(
      requests.slice(i, i + CONCURRENCY).map(async (request) => {
        const response = await app.inject({
          method: request.method as 'GET',
          url: request.url,
          headers: request.headers,
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        })
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
        const problem = answerProblem(response, request)
        if (problem)
          failures.push(`${request.route} ← ${request.method} ${request.url.slice(0, 120)}: ${problem}`)
      }),
    )
  }
  return { sent: requests.length, statuses, failures }
}
