import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { markStarted } from './metrics.js'

/** A request id a caller may choose: up to 64 letters, digits, `.`, `_` or `-` (a uuid, a trace id). */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/** '000' to '999', made once. */
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'))

/**
 * The request ids this process makes: a version-4 uuid drawn once, whose last `digits` digits count the
 * requests (decimal digits are hex digits too), a new uuid drawn when the count runs out. Unique across
 * replicas as the uuid is, and shaped as one for log tools. A request only joins two strings made before:
 * no random bytes drawn (nor Node's entropy cache refilled), no number formatted. Formatting one per
 * request costs more than the join, and V8 keeps the numbers' strings it makes in a cache that outlives
 * a request, work for the garbage collector.
 */
export function requestIds(digits = 12): () => string {
  const thousands = 10 ** (digits - 3)
  let base = ''
  let high = thousands - 1
  let low = 999
  let prefix = ''
  return () => {
    if (++low === 1000) {
      low = 0
      if (++high === thousands) {
        high = 0
        base = randomUUID().slice(0, 36 - digits)
      }
      prefix = base + String(high).padStart(digits - 3, '0')
    }
    return prefix + THREE_DIGITS[low]
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
