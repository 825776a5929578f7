import type { onSendHookHandler } from 'fastify'
import { bodyStillComing } from './body-still-coming.js'
import type { CorsHeaders } from './cors.js'
import { type DurationRecorder, recordDuration } from './metrics.js'

/**
 * The kit's one onSend hook, the last of each route's (after compression's, so that it sees the payload
 * that is sent) and of the not-found answer's: the headers every answer carries, then the request's
 * duration. One callback-style hook rather than one per concern: Fastify's runner costs a call per hook.
 */
export const answerHook =
  (corsHeaders: CorsHeaders, isClosing: () => boolean) =>
  (record: DurationRecorder): onSendHookHandler =>
  (request, reply, payload, done) => {
    reply.header('x-request-id', request.id)
    corsHeaders(request, reply)
    // A keep-alive socket would hold the drain open until its idle timeout; and a request answered before
    // its body arrived (refused early: 401, 404, 413) would otherwise have the rest of it read, however
    // slowly it trickles, only to be thrown away.
    if (isClosing() || bodyStillComing(request.raw)) reply.header('connection', 'close')
    recordDuration(record, request, reply, payload)
    done(null, payload)
  }
