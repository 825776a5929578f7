import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'
/** The headers of the kit's answers that browser code may read (beyond the CORS-safelisted ones). */
const KIT_EXPOSED_HEADERS: readonly string[] = ['x-request-id', 'etag', 'retry-after']
const MAX_AGE_S = '86400'

/** Sets an answer's CORS headers, for the origins allowed (`*` or a comma-separated list). */
export type CorsHeaders = (request: FastifyRequest, reply: FastifyReply) => void

/**
 * CORS for every answer: the kit calls this in the onSend hook it runs anyway (answer-hook.ts), where
 * @fastify/cors's per-request hook (it builds the route options twice and copies its options on every
 * request) was a measurable share of a small read (PERFORMANCE.md). `exposed`: the service's own answer
 * headers that its browser callers read, besides the kit's; a header left out is invisible to a page on
 * another origin (`headers.get` gives null), however the answer carries it.
 */
export function corsHeaders(origins: string, exposed: readonly string[] = []): CorsHeaders {
  const exposedHeaders = [
    ...new Set([...KIT_EXPOSED_HEADERS, ...exposed.map((name) => name.toLowerCase())]),
  ].join(', ')
  const anyOrigin = origins.trim() === '*'
  const listed = new Set(
    origins
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  )
  return (request, reply) => {
    if (anyOrigin) {
      reply.header('access-control-allow-origin', '*')
      reply.header('access-control-expose-headers', exposedHeaders)
      return
    }
    // The answer depends on the caller's origin, so caches must key on it.
    const vary = reply.getHeader('vary')
    if (vary === undefined) reply.header('vary', 'Origin')
    else if (!/\borigin\b/i.test(String(vary))) reply.header('vary', `${String(vary)}, Origin`)
    const origin = request.headers.origin
    if (origin === undefined || !listed.has(origin)) return
    reply.header('access-control-allow-origin', origin)
    reply.header('access-control-expose-headers', exposedHeaders)
  }
}

/**
 * Preflights: an OPTIONS route on every path, answered before any auth or body parsing, allowing the
 * request headers named.
 */
export function installPreflight(app: FastifyInstance, allowedHeaderNames: readonly string[]): void {
  const allowedHeaders = allowedHeaderNames.join(', ')
  app.options('*', { schema: { hide: true } }, (_request, reply) => {
    reply
      .code(204)
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', allowedHeaders)
      .header('access-control-max-age', MAX_AGE_S)
      .header('content-length', '0')
      .send()
  })
}
