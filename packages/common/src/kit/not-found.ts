import type { FastifyInstance, onSendHookHandler } from 'fastify'
import { bodyStillComing } from './body-still-coming.js'
import { notFound } from './error-handler.js'

/**
 * The not-found answer, in a scope of its own: the hooks only a request that matches no route needs run
 * for those requests alone, not for every request of every route. `onSend` is the hook every route of the
 * kit ends with (its headers, its duration under the unmatched route's label).
 */
export async function installNotFound(app: FastifyInstance, onSend: onSendHookHandler): Promise<void> {
  await app.register(async (scope) => {
    // Fastify reads a request's body before its not-found handler runs: an unknown path with a body still
    // coming is answered at once instead (and its connection closed), not after the last byte trickles in.
    scope.addHook('onRequest', (request, reply, done) => {
      if (bodyStillComing(request.raw)) notFound(request, reply)
      else done()
    })
    scope.addHook('onSend', onSend)
    scope.setNotFoundHandler(notFound)
  })
}
