import { createHash, timingSafeEqual } from 'node:crypto'
import { openApiSecurity } from '@genesis/common'
import type { FastifyRequest } from 'fastify'
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

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * Constant-time comparison with the token's digest (digests, so that lengths leak nothing either; the
 * token's own taken once, when the route is built).
 */
const matchesDigest = (expected: Buffer, presented: string) => timingSafeEqual(expected, digest(presented))

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
 * silently ignored.
 */
export function authenticate(policy: CallerPolicy, adminToken: string | undefined) {
  const expected = adminToken ? digest(adminToken) : undefined
  return async (request: FastifyRequest) => {
    const authorization = request.headers.authorization
    if (policy.admin && authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1]
      if (token === undefined) {
        throw malformedAuthorization()
      }
      if (!expected) {
        throw adminDisabled()
      }
      if (!matchesDigest(expected, token)) {
        throw invalidAdminToken()
      }
      request.actor = ADMIN
      return
    }
    if (request.signer) {
      if (!policy.user) throw operatorOnly()
      request.actor = { kind: 'user', address: request.signer }
      return
    }
    throw missingAuthentication(policy.user)
  }
}

/** The actor of a request that went through authenticate(). */
export const actorOf = (request: FastifyRequest): Actor => {
  if (!request.actor) throw missingAuthentication()
  return request.actor
}
