import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import { bodyStillComing } from './body-still-coming.js'
import type { CorsHeaders } from './cors.js'
import { type DurationRecorder, recordDuration } from './metrics.js'

/** Sets the headers every answer of the kit carries. */
export type KitHeaders = (request: FastifyRequest, reply: FastifyReply) => void

/** The headers every answer carries: its request id, CORS, and Connection: close when the socket must go. */
export const kitHeaders =
  (corsHeaders: CorsHeaders, isClosing: () => boolean): KitHeaders =>
  (request, reply) => {
    reply.header('x-request-id', request.id)
    corsHeaders(request, reply)
    // A keep-alive socket would hold the drain open until its idle timeout; and a request answered before
    // its body arrived (refused early: 401, 404, 413) would otherwise have the rest of it read, however
    // slowly it trickles, only to be thrown away.
    if (isClosing() || bodyStillComing(request.raw)) reply.header('connection', 'close')
  }

/**
 * The kit's one onSend hook, the last of each route's (after compression's, so that it sees the payload
 * that is sent) and of the not-found answer's: the kit's headers, then the request's duration. One
 * callback-style hook rather than one per concern: Fastify's runner costs a call per hook.
 */
export const answerHook =
  (headers: KitHeaders) =>
  (record: DurationRecorder): onSendHookHandler =>
  (request, reply, payload, done) => {
    headers(request, reply)
    recordDuration(record, request, reply, payload)
    done(null, payload)
  }
