import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'
const EXPOSED_HEADERS = 'x-request-id, etag, retry-after'
const MAX_AGE_S = '86400'

export interface CorsOptions {
  /** `*` or a comma-separated list of origins. */
  origins: string
  /** The request headers a preflight allows. */
  allowedHeaders: readonly string[]
}

/**
 * CORS for every answer and every preflight. A simple answer gets its headers from `corsHeaders`, which
 * the kit calls in the onSend hook it runs anyway: @fastify/cors's per-request hook (it builds the route
 * options twice and copies its options on every request) was a measurable share of a small read
 * (PERFORMANCE.md). Preflights
 * are answered by an OPTIONS route on every path, before any auth or body parsing.
 */
export function installCors(
  app: FastifyInstance,
  options: CorsOptions,
): (request: FastifyRequest, reply: FastifyReply) => void {
  const anyOrigin = options.origins.trim() === '*'
  const listed = new Set(
    options.origins
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  )
  const allowedHeaders = options.allowedHeaders.join(', ')

  const corsHeaders = (request: FastifyRequest, reply: FastifyReply) => {
    if (anyOrigin) {
      reply.header('access-control-allow-origin', '*')
      reply.header('access-control-expose-headers', EXPOSED_HEADERS)
      return
    }
    // The answer depends on the caller's origin, so caches must key on it.
    const vary = reply.getHeader('vary')
    if (vary === undefined) reply.header('vary', 'Origin')
    else if (!/\borigin\b/i.test(String(vary))) reply.header('vary', `${String(vary)}, Origin`)
    const origin = request.headers.origin
    if (origin === undefined || !listed.has(origin)) return
    reply.header('access-control-allow-origin', origin)
    reply.header('access-control-expose-headers', EXPOSED_HEADERS)
  }

  app.options('*', { schema: { hide: true } }, (_request, reply) => {
    reply
      .code(204)
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', allowedHeaders)
      .header('access-control-max-age', MAX_AGE_S)
      .header('content-length', '0')
      .send()
  })
  return corsHeaders
}
