import { UnauthorizedError } from '../errors.js'
import { ephemeralExpired } from './delegation-cache.js'
import { parseTimestamp, type SignedRequest } from './headers.js'
import { rememberedRead, rememberRead, sentRead } from './read-cache.js'
import { refusedBefore, rememberRefusal } from './refused-cache.js'
import { readChain, type SignedFetchOptions, type VerifiedSigner, verifyReadChain } from './verify.js'

// Signed fetch (ADR-44), by concern: headers.ts reads what the client sent, verify.ts checks the chain
// (delegation-cache.ts keeps each session's owner → ephemeral link), read-cache.ts remembers verified
// reads, replay-store.ts records used signatures in the service's database. This module is their public face.
export {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  isMutating,
  type SignedRequest,
  signedFetchPayload,
  signedPath,
} from './headers.js'
export {
  pruneSignatures,
  recordSignature,
  rememberSignature,
  replayRefused,
  signatureUsed,
  type UsedSignature,
  usedSignature,
} from './replay-store.js'
export type { SignedFetchOptions, VerifiedSigner } from './verify.js'

/** Checks the auth chain of one request (everything but replay, which needs the database). */
export async function verifySignedFetch(
  request: SignedRequest,
  options: SignedFetchOptions,
): Promise<VerifiedSigner> {
  const sent = sentRead(request)
  const remembered = sent && rememberedRead(sent)
  if (remembered) {
    const now = (options.now ?? Date.now)()
    parseTimestamp(request.headers, options.maxAgeS, now)
    if (remembered.ephemeralExpiresAt <= now) throw ephemeralExpired(remembered.ephemeralExpiresAt)
    return remembered.signer
  }
  // the cheap checks first: a malformed chain, a stale timestamp or a payload of another request never
  // waits for a turn, and a chain refused before is refused again without recovering a signature
  const read = readChain(request, options)
  const before = refusedBefore(read.chain)
  if (before) throw before
  // verification can be costly CPU work (a long chain recovered in JavaScript): each takes its turn, the
  // turns going round the callers so that one caller's flood waits behind its own requests
  let verified: Awaited<ReturnType<typeof verifyReadChain>>
  try {
    verified = options.admission
      ? await options.admission.run(() => verifyReadChain(read, options), request.client)
      : await verifyReadChain(read, options)
  } catch (error) {
    if (error instanceof UnauthorizedError) rememberRefusal(read.chain, error)
    throw error
  }
  const { signer, ephemeralExpiresAt } = verified
  if (sent !== undefined && ephemeralExpiresAt !== undefined) rememberRead(sent, signer, ephemeralExpiresAt)
  return signer
}
