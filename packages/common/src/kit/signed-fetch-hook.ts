import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify'
import {
  AUTH_CHAIN_HEADER_PREFIX,
  isMutating,
  pruneSignatures,
  rememberSignature,
  type SignedFetchOptions,
  signedPath,
  type UsedSignature,
  usedSignature,
  verifySignedFetch,
} from '../auth/signed-fetch.js'
import type { Sql } from '../db/database.js'

export type AuthMode = 'signed' | 'optional'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `signed`: signed fetch required (401 otherwise); `optional`: verified when present. */
    auth?: AuthMode
    /**
     * Who records the signature of a mutating signed request against replays. `kit` (the default): the
     * kit, before the handler, in a statement of its own. `route`: the handler, inside its own write
     * (recordSignature as a CTE), saving a statement and a round trip per request; the route must then
     * refuse the request (replayRefused) when that records nothing, and must not change anything
     * without recording it.
     */
    replay?: 'kit' | 'route'
  }
  interface FastifyRequest {
    /** The caller's lower-case address on a signed route, null when unsigned. */
    signer: string | null
    signerMetadata: Record<string, unknown> | null
    /** On a mutating request to a route with `replay: 'route'`: the signature its write must record. */
    usedSignature: UsedSignature | null
  }
}

const PRUNE_INTERVAL_MS = 60_000

/** Verifies signed fetch in onRequest, before the body is read, on routes whose config asks for it. */
export function installSignedFetch(app: FastifyInstance, sql: Sql, options: SignedFetchOptions) {
  app.decorateRequest('signer', null)
  app.decorateRequest('signerMetadata', null)
  app.decorateRequest('usedSignature', null)
  const verify =
    (mode: AuthMode, replay: 'kit' | 'route'): onRequestAsyncHookHandler =>
    async (request) => {
      if (mode === 'optional' && request.headers[`${AUTH_CHAIN_HEADER_PREFIX}0`] === undefined) return
      const path = signedPath(request.url)
      const signer = await verifySignedFetch(
        { method: request.method, path, headers: request.headers, client: request.ip },
        options,
      )
      if (isMutating(request.method)) {
        const used = usedSignature(signer, options.maxAgeS)
        if (replay === 'route') request.usedSignature = used
        else await rememberSignature(sql, used)
      }
      request.signer = signer.address
      request.signerMetadata = signer.metadata
    }
  // Attached to the routes that ask for it, first among their onRequest hooks (a route's own hooks may
  // rely on request.signer), so that unsigned routes pay nothing.
  app.addHook('onRoute', (route) => {
    const mode = route.config?.auth
    if (!mode) return
    const own =
      route.onRequest === undefined
        ? []
        : Array.isArray(route.onRequest)
          ? route.onRequest
          : [route.onRequest]
    route.onRequest = [verify(mode, route.config?.replay ?? 'kit'), ...own]
  })
  const closing = new AbortController()
  const timer = setInterval(() => {
    pruneSignatures(sql, closing.signal).catch((err: unknown) =>
      app.log.warn({ err }, 'pruning used signatures failed'),
    )
  }, PRUNE_INTERVAL_MS)
  timer.unref()
  app.addHook('onClose', async () => {
    clearInterval(timer)
    closing.abort()
  })
}
