import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { markStarted } from './metrics.js'

/** A request id a caller may choose: up to 64 letters, digits, `.`, `_` or `-` (a uuid, a trace id). */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/**
 * The request ids this process makes: a version-4 uuid drawn once, whose last twelve hex digits count the
 * requests. Unique across replicas as the uuid is, and shaped as one for log tools, without drawing random
 * bytes (and refilling Node's entropy cache) on every request.
 */
function requestIds(): () => string {
  const base = randomUUID().slice(0, 24)
  let counted = 0
  return () => {
    counted = (counted + 1) % 0x1000000000000
    return base + counted.toString(16).padStart(12, '0')
  }
}

/**
 * The caller's X-Request-Id when it is well formed, else a new id of this process. Fastify asks for it first
 * thing with every request, so the request's start is marked here too (for its duration in the metrics).
 */
function requestIdOf(nextId: () => string) {
  return (request: IncomingMessage): string => {
    markStarted(request)
    const sent = request.headers['x-request-id']
    return typeof sent === 'string' && CALLER_REQUEST_ID.test(sent) ? sent : nextId()
  }
}

/** The kit's `genReqId`: the caller's id or one of this process's, the request's start marked. */
export const requestIdMaker = (): ((request: IncomingMessage) => string) => requestIdOf(requestIds())
