import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
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
    readonly signer: string | null
    readonly signerMetadata: Record<string, unknown> | null
    /** On a mutating request to a route with `replay: 'route'`: the signature its write must record. */
    readonly usedSignature: UsedSignature | null
  }
}

/** What the kit learnt of a signed request: one slot per request, read through the three getters above. */
interface Signed {
  address: string
  metadata: Record<string, unknown>
  used: UsedSignature | null
}
const SIGNED = Symbol('signed')
type WithSigned = FastifyRequest & { [SIGNED]: Signed | null }
const signedOf = (request: FastifyRequest) => (request as WithSigned)[SIGNED]

const PRUNE_INTERVAL_MS = 60_000

function getterOf<T>(read: (signed: Signed) => T) {
  return function (this: FastifyRequest): T | null {
    const signed = signedOf(this)
    return signed === null ? null : read(signed)
  }
}

/** Verifies signed fetch in onRequest, before the body is read, on routes whose config asks for it. */
export function installSignedFetch(app: FastifyInstance, sql: Sql, options: SignedFetchOptions) {
  // One slot set per request (each value decoration is a store in Fastify's request constructor), the
  // three names as getters on the prototype.
  app.decorateRequest(SIGNED, null)
  app.decorateRequest('signer', { getter: getterOf((signed) => signed.address) })
  app.decorateRequest('signerMetadata', { getter: getterOf((signed) => signed.metadata) })
  app.decorateRequest('usedSignature', { getter: getterOf((signed) => signed.used) })
  const verifySigned = async (request: FastifyRequest, replay: 'kit' | 'route') => {
    const path = signedPath(request.url)
    const signer = await verifySignedFetch(
      { method: request.method, path, headers: request.headers, client: request.ip },
      options,
    )
    let used: UsedSignature | null = null
    if (isMutating(request.method)) {
      const signature = usedSignature(signer, options.maxAgeS)
      if (replay === 'route') used = signature
      else await rememberSignature(sql, signature)
    }
    ;(request as WithSigned)[SIGNED] = { address: signer.address, metadata: signer.metadata, used }
  }
  // A callback hook, so that an unsigned request to an `optional` route passes without a promise. A refusal
  // always reaches `done` as an error: `done()` with nothing would let the request through unverified.
  const verify =
    (mode: AuthMode, replay: 'kit' | 'route'): onRequestHookHandler =>
    (request, _reply, done) => {
      if (mode === 'optional' && request.headers[`${AUTH_CHAIN_HEADER_PREFIX}0`] === undefined) return done()
      verifySigned(request, replay).then(
        () => done(),
        (error: unknown) =>
          done(error instanceof Error ? error : new Error(`signed fetch refused: ${String(error)}`)),
      )
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
