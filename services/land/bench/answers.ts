/**
 * The cached reads bench/run.ts measures against bare Fastify, and the answers both baselines serve: for
 * each path, the route the service matches it with and the answer it sent (status 200, the body, and the
 * headers that belong to the answer itself: its type and its cache validators), recorded once
 * (answers.json in `dir`). bench/bare-server.ts and bench/kit-server.ts serve that file with
 * `serveAnswers`, so every path measured here is routed as the service routes it and answered with the
 * same bytes by all three servers. What the kit adds to every answer (X-Request-Id, the CORS headers) is
 * not recorded: that is the kit's cost, measured.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, RouteHandlerMethod, RouteShorthandOptions } from 'fastify'

/** A read the bench asks for, and the route of the service that answers it. */
export interface CachedRead {
  path: string
  route: string
}

export interface RecordedAnswer extends CachedRead {
  file: string
  /** The answer's own headers, as the service sent them (content type, ETag, Cache-Control, …). */
  headers: Record<string, string>
  bytes: number
}

/** The headers that describe the answer: a server of the same API sends them, whatever its framework. */
const ANSWER_HEADERS = ['content-type', 'etag', 'cache-control', 'last-modified', 'vary'] as const

/**
 * Every read a client repeats and the service answers from memory: a parcel, the districts and one of
 * them, the default PNG map, the explorers' parcel view and estate map, atlas-server's ping and district.
 */
export async function cachedReads(serviceUrl: string): Promise<CachedRead[]> {
  const districts = (await (await fetch(`${serviceUrl}/districts`)).json()) as { data: Array<{ id: string }> }
  const district = districts.data[0]?.id
  if (!district) throw new Error('the service lists no district')
  return [
    { path: '/parcels/0/0', route: '/parcels/:x/:y' },
    { path: '/districts', route: '/districts' },
    { path: `/v2/districts/${district}`, route: '/v2/districts/:id' },
    { path: '/map.png', route: '/map.png' },
    { path: '/v1/minimap.png', route: '/v1/minimap.png' },
    { path: '/v1/estatemap.png', route: '/v1/estatemap.png' },
    { path: '/v2/ping', route: '/v2/ping' },
  ]
}

export async function recordAnswers(
  serviceUrl: string,
  reads: CachedRead[],
  dir: string,
): Promise<RecordedAnswer[]> {
  const answers: RecordedAnswer[] = []
  for (const [i, read] of reads.entries()) {
    const response = await fetch(`${serviceUrl}${read.path}`)
    if (response.status !== 200) throw new Error(`${read.path} answered ${response.status}`)
    const body = Buffer.from(await response.arrayBuffer())
    const file = `answer-${i}`
    writeFileSync(join(dir, file), body)
    const headers: Record<string, string> = {}
    for (const name of ANSWER_HEADERS) {
      const value = response.headers.get(name)
      if (value !== null) headers[name] = value
    }
    answers.push({ ...read, file, headers, bytes: body.length })
  }
  writeFileSync(join(dir, 'answers.json'), JSON.stringify(answers))
  return answers
}

/** The recorded answers, each with its bytes, for a baseline server. */
export function readAnswers(dir: string): Array<RecordedAnswer & { body: Buffer }> {
  const answers = JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8')) as RecordedAnswer[]
  return answers.map((answer) => ({ ...answer, body: readFileSync(join(dir, answer.file)) }))
}

type Answer = { headers: Record<string, string>; body: Buffer }

/**
 * Registers the service's route of every recorded answer, each answering its path's recorded answer from
 * memory (a parametric route finds it by URL).
 */
export function serveAnswers(app: FastifyInstance, dir: string, options: RouteShorthandOptions = {}): void {
  const byRoute = new Map<string, Map<string, Answer>>()
  for (const { route, path, headers, body } of readAnswers(dir)) {
    const paths = byRoute.get(route) ?? new Map()
    paths.set(path, { headers, body })
    byRoute.set(route, paths)
  }
  let id = 0
  for (const [route, paths] of byRoute) app.get(route, options, handlerOf(paths, id++))
}

/**
 * A route's handler as a server written for these routes would have it: a function of its own setting the
 * route's headers by name. Compiled from its own source because closures of one function literal share
 * V8's feedback: one handler for every route would see every answer's headers, and turn megamorphic as
 * the bench's rounds alternate the reads, a cost no hand-written server pays.
 */
function handlerOf(paths: Map<string, Answer>, id: number): RouteHandlerMethod {
  const names = Object.keys(paths.values().next().value?.headers ?? {})
  for (const { headers } of paths.values())
    if (Object.keys(headers).join() !== names.join())
      throw new Error('the paths of a route differ in headers')
  const set = names.map((name) => `.header(${JSON.stringify(name)}, answer.headers[${JSON.stringify(name)}])`)
  const source = `return function answer${id}(request, reply) {
    const answer = paths.get(request.url)
    if (answer === undefined) return reply.code(404).send()
    return reply${set.join('')}.send(answer.body)
  }`
  return new Function('paths', source)(paths) as RouteHandlerMethod
}
