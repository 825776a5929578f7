import {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  header,
  isMutating,
  type SignedRequest,
} from './headers.js'
import type { VerifiedSigner } from './verify.js'

// A client re-sending a signed read (retries, polling within the age window) sends the very same headers,
// and everything verified of them but the clock stays true: the signer is remembered under all of them,
// and only the timestamp's age and the ephemeral key's expiry are checked again. Reads with personal
// chains only: a mutating request is never answered twice (replays are refused), so remembering it would
// only cost memory. Bounded; the oldest entries go first.

export interface RememberedRead {
  sent: SentRead
  signer: VerifiedSigner
  ephemeralExpiresAt: number
}
const MAX_VERIFIED_READS = 10_000
/** By the last link's header, which holds the request's own signature; the rest is compared on a hit. */
const verifiedReads = new Map<string, RememberedRead>()

/** Every input of the verification, as sent. */
export interface SentRead {
  method: string
  path: string
  timestamp: string
  metadata: string
  owner: string
  ephemeral: string
  last: string
}

/** A read with a three-link chain, as sent; undefined for anything else. */
export function sentRead({ method, path, headers }: SignedRequest): SentRead | undefined {
  if (isMutating(method)) return undefined
  const owner = header(headers, `${AUTH_CHAIN_HEADER_PREFIX}0`)
  const ephemeral = header(headers, `${AUTH_CHAIN_HEADER_PREFIX}1`)
  const last = header(headers, `${AUTH_CHAIN_HEADER_PREFIX}2`)
  const timestamp = header(headers, AUTH_TIMESTAMP_HEADER)
  if (
    owner === undefined ||
    ephemeral === undefined ||
    last === undefined ||
    timestamp === undefined ||
    headers[`${AUTH_CHAIN_HEADER_PREFIX}3`] !== undefined
  )
    return undefined
  // A missing metadata header reads as '{}', as parseMetadata reads it.
  const metadata = header(headers, AUTH_METADATA_HEADER) ?? '{}'
  return { method, path, timestamp, metadata, owner, ephemeral, last }
}

/** The read remembered with exactly these headers, if any. */
export function rememberedRead(sent: SentRead): RememberedRead | undefined {
  const known = verifiedReads.get(sent.last)
  return known !== undefined && sameRead(known.sent, sent) ? known : undefined
}

const sameRead = (a: SentRead, b: SentRead) =>
  a.last === b.last &&
  a.method === b.method &&
  a.path === b.path &&
  a.timestamp === b.timestamp &&
  a.metadata === b.metadata &&
  a.owner === b.owner &&
  a.ephemeral === b.ephemeral

export function rememberRead(sent: SentRead, signer: VerifiedSigner, ephemeralExpiresAt: number) {
  if (verifiedReads.size >= MAX_VERIFIED_READS) verifiedReads.delete(verifiedReads.keys().next().value!)
  // Shared by every request that re-sends these headers.
  Object.freeze(signer.metadata)
  verifiedReads.set(sent.last, { sent, signer: Object.freeze(signer), ephemeralExpiresAt })
}
