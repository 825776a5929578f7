import { timingSafeEqual } from 'node:crypto'
import { openApiSecurity } from '@genesis/common'
import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Actor } from '../domain/transitions.js'
import {
  adminDisabled,
  invalidAdminToken,
  malformedAuthorization,
  missingAuthentication,
  operatorOnly,
} from '../errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling, set by the route's authenticate hook. */
    actor: Actor | null
  }
}

/**
 * Whether a presented token is `token`, in a time that tells nothing of it: the presented bytes are laid
 * over a zeroed buffer of the token's length (any excess dropped) and compared in constant time, so that a
 * wrong length costs what a wrong byte does; the lengths are compared only once the bytes matched, and only
 * tell a caller what it sent. (A SHA-256 of each presented token did the same for over ten times the CPU.)
 */
function tokenMatcher(token: string): (presented: string) => boolean {
  const expected = Buffer.from(token, 'utf8')
  return (presented) => {
    const given = Buffer.alloc(expected.length)
    given.write(presented, 'utf8')
    return timingSafeEqual(given, expected) && Buffer.byteLength(presented, 'utf8') === expected.length
  }
}

/** The operator, the same for every request the admin token authenticates. */
const ADMIN: Actor = Object.freeze({ kind: 'admin' })

export interface CallerPolicy {
  /** The operator, with `Authorization: Bearer <CLAIMS_ADMIN_TOKEN>`. */
  admin: boolean
  /** A user, by signed fetch (verified by the kit before this hook runs). */
  user: boolean
}

/** What the OpenAPI document says a route with this policy takes (so /docs can send the operator's token). */
export const securityOf = (policy: CallerPolicy) =>
  openApiSecurity({ signed: policy.user, bearer: policy.admin })

/** The bearer scheme of the OpenAPI document. */
export const BEARER_DESCRIPTION =
  "The operator's CLAIMS_ADMIN_TOKEN (pnpm start prints the development one): Authorization: Bearer <token>"

const BEARER = /^Bearer\s+(\S+)\s*$/i

/**
 * A route onRequest hook (so it runs before the body is read): resolves the caller from the admin bearer
 * token or the signed-fetch signer. An Authorization header on an admin route must be right, never
 * silently ignored. A callback hook, not an async one: it never waits, so it costs no promise.
 */
export function authenticate(policy: CallerPolicy, adminToken: string | undefined): onRequestHookHandler {
  const isAdminToken = adminToken ? tokenMatcher(adminToken) : undefined
  const callerOf = (request: FastifyRequest): Actor => {
    const authorization = request.headers.authorization
    if (policy.admin && authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1]
      if (token === undefined) throw malformedAuthorization()
      if (!isAdminToken) throw adminDisabled()
      if (!isAdminToken(token)) throw invalidAdminToken()
      return ADMIN
    }
    if (request.signer) {
      if (!policy.user) throw operatorOnly()
      return { kind: 'user', address: request.signer }
    }
    throw missingAuthentication(policy.user)
  }
  // Fastify answers a hook's synchronous throw as it does a rejected promise.
  return (request, _reply, done) => {
    request.actor = callerOf(request)
    done()
  }
}

/** The actor of a request that went through authenticate(). */
export const actorOf = (request: FastifyRequest): Actor => {
  if (!request.actor) throw missingAuthentication()
  return request.actor
}
