import { Authenticator } from '@dcl/crypto'
import type { Identity } from './identity.js'

export const AUTH_CHAIN_HEADER_PREFIX = 'x-identity-auth-chain-'
export const AUTH_TIMESTAMP_HEADER = 'x-identity-timestamp'
export const AUTH_METADATA_HEADER = 'x-identity-metadata'

export interface SignOptions {
  /** Sent as `x-identity-metadata`; signed with the request. */
  metadata?: Record<string, unknown>
  /** Milliseconds since the epoch; now by default. */
  timestamp?: number
}

/**
 * The signed-fetch headers of one request (ADR-44, as decentraland-crypto-fetch sends them): the last link
 * signs `method:path:timestamp:metadata` lower-cased, `path` being the URL's path without its query string.
 */
export function signedHeaders(
  identity: Identity,
  method: string,
  path: string,
  options: SignOptions = {},
): Record<string, string> {
  const timestamp = String(options.timestamp ?? Date.now())
  const metadata = JSON.stringify(options.metadata ?? {})
  const pathname = path.split('?', 1)[0] ?? path
  const payload = [method, pathname, timestamp, metadata].join(':').toLowerCase()
  const headers: Record<string, string> = {
    [AUTH_TIMESTAMP_HEADER]: timestamp,
    [AUTH_METADATA_HEADER]: metadata,
  }
  Authenticator.signPayload(identity.authIdentity, payload).forEach((link, i) => {
    headers[`${AUTH_CHAIN_HEADER_PREFIX}${i}`] = JSON.stringify(link)
  })
  return headers
}

/** A random nonce for the signed metadata: two requests signed in the same millisecond stay distinct. */
export const nonce = (): string => {
  const bytes = new Uint8Array(12)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}
