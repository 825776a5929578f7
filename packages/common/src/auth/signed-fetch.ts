import { ephemeralExpired } from './delegation-cache.js'
import { parseTimestamp, type SignedRequest } from './headers.js'
import { rememberedRead, rememberRead, sentRead } from './read-cache.js'
import { type SignedFetchOptions, type VerifiedSigner, verifyChain } from './verify.js'

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
  // verification can be costly CPU work (a long chain recovered in JavaScript): each takes its turn
  const { signer, ephemeralExpiresAt } = options.admission
    ? await options.admission.run(() => verifyChain(request, options))
    : await verifyChain(request, options)
  if (sent !== undefined && ephemeralExpiresAt !== undefined) rememberRead(sent, signer, ephemeralExpiresAt)
  return signer
}
