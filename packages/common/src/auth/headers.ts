import type { IncomingHttpHeaders } from 'node:http'
import {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  type AuthChain,
  type AuthLink,
} from '@dcl/crypto'
import { refuse } from './refusal.js'

export { signedFetchPayload } from '@genesis/wire/signing'

export { AUTH_CHAIN_HEADER_PREFIX, AUTH_METADATA_HEADER, AUTH_TIMESTAMP_HEADER }

/** Scenes run third-party code inside the client; their signatures must not act for the user. */
const KERNEL_SCENE_SIGNER = 'decentraland-kernel-scene'
const MUTATING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const MAX_CHAIN_LINKS = 10

export interface SignedRequest {
  method: string
  /** The path as the client sent it, prefix included, without the query string. */
  path: string
  headers: IncomingHttpHeaders
  /** Who sends it (the client's address): verifications take turns by it. */
  client?: string
}

export const isMutating = (method: string) => MUTATING_METHODS.has(method.toUpperCase())

const cut = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text)

/**
 * The path a request signs, from its request target: without the query string, and for the absolute
 * form a proxy sends (`GET http://host:port/v1/things HTTP/1.1`) the URL's path alone.
 */
export function signedPath(url: string): string {
  let path = url
  if (path.charCodeAt(0) !== 47 /* / */) {
    const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(path)
    // `http://host` and `http://host?q` target the root.
    if (authority !== null) path = `/${path.slice(authority[0].length).replace(/^\//, '')}`
  }
  const query = path.indexOf('?')
  return query === -1 ? path : path.slice(0, query)
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

export function parseChain(headers: IncomingHttpHeaders): AuthChain {
  const chain: AuthLink[] = []
  for (let i = 0; ; i++) {
    const raw = header(headers, `${AUTH_CHAIN_HEADER_PREFIX}${i}`)
    if (raw === undefined) break
    if (i >= MAX_CHAIN_LINKS)
      throw refuse('malformed', `The auth chain has more than ${MAX_CHAIN_LINKS} links`)
    let link: unknown
    try {
      link = JSON.parse(raw)
    } catch {
      throw refuse('malformed', `Header ${AUTH_CHAIN_HEADER_PREFIX}${i} is not valid JSON`)
    }
    if (
      typeof link !== 'object' ||
      link === null ||
      typeof (link as AuthLink).type !== 'string' ||
      typeof (link as AuthLink).payload !== 'string' ||
      typeof (link as AuthLink).signature !== 'string'
    ) {
      throw refuse(
        'malformed',
        `Header ${AUTH_CHAIN_HEADER_PREFIX}${i} must be a JSON object with string type, payload and signature`,
      )
    }
    chain.push(link as AuthLink)
  }
  if (chain.length === 0) {
    throw refuse('missing', `Missing signed-fetch headers: ${AUTH_CHAIN_HEADER_PREFIX}0 is required`)
  }
  return chain
}

/** The timestamp, refused when it is further than `maxAgeS` from `now` either way. */
export function parseTimestamp(headers: IncomingHttpHeaders, maxAgeS: number, now: number): number {
  const raw = header(headers, AUTH_TIMESTAMP_HEADER)
  if (raw === undefined) throw refuse('missing', `Missing ${AUTH_TIMESTAMP_HEADER} header`)
  // No leading zero: the payload signs the number as the client wrote it, and the check below reads it
  // as a number, so one number must have one spelling for both to agree.
  if (!/^(?:0|[1-9]\d{0,15})$/.test(raw)) {
    throw refuse(
      'malformed',
      `Header ${AUTH_TIMESTAMP_HEADER} must be milliseconds since epoch in decimal digits without leading zeros, got "${cut(raw)}"`,
    )
  }
  const timestamp = Number(raw)
  const skew = now - timestamp
  if (Math.abs(skew) > maxAgeS * 1000) {
    throw refuse(
      'expired',
      `Signature expired: ${AUTH_TIMESTAMP_HEADER} is ${Math.round(Math.abs(skew) / 1000)}s ${skew > 0 ? 'in the past' : 'in the future'}, the limit is ${maxAgeS}s`,
    )
  }
  return timestamp
}

/**
 * Whether the metadata names the kernel-scene signer, decided on what was signed: the payload covers the
 * lower-cased text, so `{"Signer":"DECENTRALAND-KERNEL-SCENE"}` carries the scene's own signature. Keys
 * and values are compared lower-case after parsing too, for escapes (`\u0045`) lower-casing the text misses.
 */
function isSceneSigned(raw: string): boolean {
  let signed: unknown
  try {
    signed = JSON.parse(raw.toLowerCase())
  } catch {
    // Unreachable for text that parsed as sent (JSON's keywords and escapes are lower-case already, bar hex
    // digits and exponents); should it happen, refuse rather than let it through.
    return true
  }
  if (typeof signed !== 'object' || signed === null) return false
  return Object.entries(signed).some(
    ([key, value]) =>
      key.toLowerCase() === 'signer' &&
      typeof value === 'string' &&
      value.toLowerCase() === KERNEL_SCENE_SIGNER,
  )
}

/** The metadata header as sent (what the payload signs) and as an object; scene signers are refused. */
export function parseMetadata(headers: IncomingHttpHeaders): { raw: string; value: Record<string, unknown> } {
  const raw = header(headers, AUTH_METADATA_HEADER) ?? '{}'
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    throw refuse('malformed', `Header ${AUTH_METADATA_HEADER} is not valid JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refuse('malformed', `Header ${AUTH_METADATA_HEADER} must be a JSON object`)
  }
  const metadata = value as Record<string, unknown>
  if (isSceneSigned(raw)) {
    throw refuse(
      'forbidden_signer',
      'Requests signed by a scene (decentraland-kernel-scene) are not accepted',
    )
  }
  return { raw, value: metadata }
}
