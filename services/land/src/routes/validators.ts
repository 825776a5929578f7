import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { matchesIfNoneMatch } from '../render/etag.js'

/** atlas-server's caching: shared caches may serve an answer for a minute, stale a little longer. */
export const ATLAS_CACHE_CONTROL = 'public, max-age=60, s-maxage=60, stale-while-revalidate=120'

/** A short, stable digest for a weak ETag. */
export const digest = (...parts: Array<string | Buffer>) => {
  const hash = createHash('sha1')
  for (const part of parts) hash.update(part).update('\0')
  return hash.digest('base64url').slice(0, 20)
}

/** An HTTP date, made once per distinct time: a data version's time is sent with every answer of it. */
let lastDate = { ms: Number.NaN, text: '' }
const httpDate = (ms: number): string => {
  if (ms !== lastDate.ms) lastDate = { ms, text: new Date(ms).toUTCString() }
  return lastDate.text
}

/**
 * Sets ETag, Last-Modified (when known) and Cache-Control (atlas-server's unless given); true when the
 * client already holds this answer. If-None-Match wins over If-Modified-Since when both are sent (RFC 9110).
 */
export function notModified(
  request: FastifyRequest,
  reply: FastifyReply,
  validators: { etag: string; lastModified?: number; cacheControl?: string },
): boolean {
  const { etag, lastModified } = validators
  reply.header('etag', etag).header('cache-control', validators.cacheControl ?? ATLAS_CACHE_CONTROL)
  if (lastModified !== undefined) reply.header('last-modified', httpDate(lastModified))
  const ifNoneMatch = request.headers['if-none-match']
  if (ifNoneMatch !== undefined) return matchesIfNoneMatch(ifNoneMatch, etag)
  const ifModifiedSince = request.headers['if-modified-since']
  if (ifModifiedSince === undefined || lastModified === undefined) return false
  const since = Date.parse(ifModifiedSince)
  return !Number.isNaN(since) && lastModified <= since
}
