import { okJson } from '@genesis/common'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type CachedBody, negotiateEncoding } from '../grid/map-body.js'

export const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * Route options for @fastify/compress (its types are not in this package): land routes take no bodies,
 * so no decompression; routes that send bodies compressed once in advance (or too small to compress)
 * skip the kit's per-request compression as well.
 */
export const NO_BODY = { decompress: false } as object
export const SELF_ENCODED = { compress: false, decompress: false } as object

/** Sends JSON that is already serialised (Fastify passes a string with a JSON content type as is). */
export const sendJson = (reply: FastifyReply, json: string | Buffer) => reply.type(JSON_TYPE).send(json)

const COMPRESS_FROM_BYTES = 1024

/**
 * Sends a cached body in the best encoding the client accepts, compressed once and reused (the routes
 * using it are SELF_ENCODED, so the kit does not compress again).
 */
export function sendCached(request: FastifyRequest, reply: FastifyReply, body: CachedBody): void {
  reply.type(JSON_TYPE).header('vary', 'accept-encoding')
  const encoding =
    body.bytes < COMPRESS_FROM_BYTES ? 'identity' : negotiateEncoding(request.headers['accept-encoding'])
  // Synchronous when nothing has to wait: the hot reads stay off the promise machinery.
  if (encoding === 'identity') {
    reply.send(body.json)
    return
  }
  body.encoded(encoding).then(
    (bytes) => reply.header('content-encoding', encoding).send(bytes),
    (error: Error) => reply.send(error),
  )
}

/**
 * Sends `{ ok: true, data }` with one JSON.stringify and no second pass through the response serialiser
 * (PERFORMANCE.md: land's pre-serialised answers). The response schemas document these shapes (and the
 * tests check answers against them); the serialisers that build `data` are typed from the same schemas.
 */
export const sendData = (reply: FastifyReply, data: unknown) => sendJson(reply, okJson(JSON.stringify(data)))
