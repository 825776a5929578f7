import { createRequire } from 'node:module'
import { type AuthChain, Authenticator } from '@dcl/crypto'
import { verifiedDelegation } from './delegation-cache.js'
import {
  parseChain,
  parseMetadata,
  parseTimestamp,
  type SignedRequest,
  signedFetchPayload,
} from './headers.js'
import { fastKeccak256, recoverPersonalSigner } from './native-crypto.js'
import { invalidSignature, refuse } from './refusal.js'

// eth-connect is CommonJS marked __esModule: Node's `import x from` gives its module.exports, but vitest
// (and bundlers) give its `default`, the RequestManager, which has no HTTPProvider. require is the same everywhere.
const { HTTPProvider } = createRequire(import.meta.url)('eth-connect') as typeof import('eth-connect')

export interface VerifiedSigner {
  /** The owner of the chain, lower-case. */
  address: string
  metadata: Record<string, unknown>
  /** The signature of the last link, as sent. */
  signature: string
  /** What replay protection remembers (see replayKey): the same for every spelling of the signatures. */
  replayKey: string
  timestamp: number
}

export interface SignedFetchOptions {
  maxAgeS: number
  /** Verifies contract-wallet (EIP-1654) chains; without it they are refused. */
  rpcUrl?: string | undefined
  now?: () => number
}

export interface VerifiedChain {
  signer: VerifiedSigner
  /** Known for personal chains only: until when the request's own signature stays good. */
  ephemeralExpiresAt: number | undefined
}

/** Parses and verifies every header of a signed request (everything but replay, which needs the database). */
export async function verifyChain(
  request: SignedRequest,
  options: SignedFetchOptions,
): Promise<VerifiedChain> {
  const now = (options.now ?? Date.now)()
  const chain = parseChain(request.headers)
  const timestamp = parseTimestamp(request.headers, options.maxAgeS, now)
  const metadata = parseMetadata(request.headers)
  const expected = signedFetchPayload(request.method, request.path, timestamp, metadata.raw)
  const last = chain[chain.length - 1]!
  if (last.payload !== expected) {
    throw refuse(
      'payload_mismatch',
      `The signed payload does not match this request: expected "${expected}", signed "${last.payload}"`,
    )
  }
  let ephemeralExpiresAt: number | undefined
  if (isPersonalChain(chain)) ephemeralExpiresAt = (await verifyPersonalChain(chain, now)).expiresAt
  else await verifyAnyChain(chain, expected, options.rpcUrl, now)
  const address = Authenticator.ownerAddress(chain).toLowerCase()
  if (!/^0x[0-9a-f]{40}$/.test(address))
    throw refuse('malformed', 'The auth chain does not start with a signer address')
  const signer = {
    address,
    metadata: metadata.value,
    signature: last.signature ?? '',
    replayKey: replayKey(address, chain),
    timestamp,
  }
  return { signer, ephemeralExpiresAt }
}

/**
 * A request is used once whatever the spelling of its signatures. Verification reads a signature as bytes
 * (hex in any case), takes v as 0/1 or 27/28 and recovers from a high-s form too, and @dcl/crypto's
 * parser is looser still, so the text of a signature is no identity. What was signed is: the owner and
 * every payload of the chain (the delegations and the request line, timestamp and metadata). A wallet
 * signs deterministically (RFC 6979), so two genuine requests with the same payloads carry the same
 * signature anyway: keying on the payloads refuses nothing a signature key would accept.
 */
function replayKey(owner: string, chain: AuthChain): string {
  const signed = [owner, ...chain.slice(1).map((link) => link.payload)].join('\n')
  return fastKeccak256(Buffer.from(signed, 'utf8'))
}

/** The chain every wallet-signed request has: owner → ephemeral key (personal sign) → request. */
const isPersonalChain = (chain: AuthChain) =>
  chain.length === 3 &&
  chain[0]!.type === 'SIGNER' &&
  chain[1]!.type === 'ECDSA_EPHEMERAL' &&
  chain[2]!.type === 'ECDSA_SIGNED_ENTITY'

/** The delegation from the cache, the request's own signature recovered natively. */
async function verifyPersonalChain(chain: AuthChain, now: number) {
  const delegation = await verifiedDelegation(chain, now)
  if (delegation.expiresAt <= now) throw invalidSignature('the ephemeral key has expired')
  const last = chain[2]!
  if (recoverPersonalSigner(last.payload, last.signature ?? '') !== delegation.ephemeral) {
    throw invalidSignature('the request is not signed by the ephemeral key')
  }
  return delegation
}

/** Any other chain, contract wallets included, in full by @dcl/crypto. */
async function verifyAnyChain(chain: AuthChain, expected: string, rpcUrl: string | undefined, now: number) {
  const usesContractWallet = chain.some((link) => link.type.includes('EIP_1654'))
  if (usesContractWallet && !rpcUrl) {
    throw refuse(
      'invalid_signature',
      'Contract-wallet (EIP-1654) signatures cannot be verified: no RPC is configured',
    )
  }
  const provider = usesContractWallet && rpcUrl ? new HTTPProvider(rpcUrl) : null
  const result = await Authenticator.validateSignature(expected, chain, provider, now)
  if (!result.ok) throw invalidSignature(result.message ?? 'the auth chain does not verify')
}
