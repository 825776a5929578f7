import { type AuthChain, Authenticator, AuthLinkType, parseEphemeralPayload } from '@dcl/crypto'
import type { Admission } from '../admission.js'
import { legacyProvider } from '../chain/pool-provider.js'
import { ProviderPool } from '../chain/providers.js'
import { splitRpcUrls } from '../chain/rpc-urls.js'
import { ephemeralExpired, verifiedDelegation } from './delegation-cache.js'
import {
  parseChain,
  parseMetadata,
  parseTimestamp,
  type SignedRequest,
  signedFetchPayload,
} from './headers.js'
import { fastKeccak256, recoverPersonalSigner } from './native-crypto.js'
import { ephemeralExpiredText, invalidSignature, libraryRefusal, refuse } from './refusal.js'

/**
 * The providers of each AUTH_RPC_URL (one URL or a comma-separated list), made once: a pool remembers
 * which of them answer, so a contract-wallet check fails over and skips a provider that is down.
 */
const pools = new Map<string, ProviderPool>()
function authProviders(rpcUrl: string) {
  let pool = pools.get(rpcUrl)
  if (!pool) {
    pool = new ProviderPool({ urls: splitRpcUrls(rpcUrl), name: 'AUTH_RPC_URL' })
    pools.set(rpcUrl, pool)
  }
  return legacyProvider(pool)
}

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
  /** Gives each verification its turn (admission control); without it verifications run as they come. */
  admission?: Admission | undefined
}

export interface VerifiedChain {
  signer: VerifiedSigner
  /** Known for personal chains only: until when the request's own signature stays good. */
  ephemeralExpiresAt: number | undefined
}

/** What the headers of a signed request say, read and checked for shape, before any signature is recovered. */
export interface ReadChain {
  chain: AuthChain
  timestamp: number
  metadata: { raw: string; value: Record<string, unknown> }
  expected: string
}

/**
 * The cheap checks, in order, before any signature is recovered: the chain's headers (at most
 * MAX_CHAIN_LINKS links, each a JSON object of strings), the timestamp's window, the metadata, and the last
 * link's payload against this request's method, path, timestamp and metadata. A request that fails one
 * costs microseconds and never waits for a turn of the verifications.
 */
export function readChain(
  request: SignedRequest,
  options: Pick<SignedFetchOptions, 'maxAgeS' | 'now'>,
): ReadChain {
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
  return { chain, timestamp, metadata, expected }
}

/** Parses and verifies every header of a signed request (everything but replay, which needs the database). */
export async function verifyChain(
  request: SignedRequest,
  options: SignedFetchOptions,
): Promise<VerifiedChain> {
  return verifyReadChain(readChain(request, options), options)
}

/** The signatures of a chain `readChain` accepted: the costly part. */
export async function verifyReadChain(read: ReadChain, options: SignedFetchOptions): Promise<VerifiedChain> {
  const now = (options.now ?? Date.now)()
  const { chain, timestamp, metadata, expected } = read
  const last = chain[chain.length - 1]!
  let ephemeralExpiresAt: number | undefined
  let requestSigner: string
  if (isPersonalChain(chain)) {
    const delegation = await verifyPersonalChain(chain, now)
    ephemeralExpiresAt = delegation.expiresAt
    requestSigner = canonicalAuthority(delegation.ephemeral)
  } else {
    await verifyAnyChain(chain, expected, options.rpcUrl, now)
    requestSigner = requestSignerOf(chain)
  }
  const address = Authenticator.ownerAddress(chain).toLowerCase()
  if (!/^0x[0-9a-f]{40}$/.test(address))
    throw refuse('malformed', 'The auth chain does not start with a signer address')
  const signer = {
    address,
    metadata: metadata.value,
    signature: last.signature ?? '',
    replayKey: replayKey(address, requestSigner, expected),
    timestamp,
  }
  return { signer, ephemeralExpiresAt }
}

/**
 * A request is used once whatever its spelling, so its key holds only what verification established, each
 * in one form: the owner (its address, lower-case), the key that signed the request (the last link's
 * authority, an address, lower-case) and the request line that key signed (`method:path:timestamp:metadata`
 * lower-cased, which the last link's payload equals exactly). Nothing else of the chain is in it: not the
 * signatures' text (verification reads hex in any case, v as 0/1 or 27/28, s high or low), nor the text of
 * a delegation (@dcl/crypto drops every `\r` of it, and hashes a lone surrogate as U+FFFD, before checking
 * the owner's signature), nor which delegation carried the key or until when: the same request of the same
 * key under a renewed delegation is the same request. A key signs deterministically (RFC 6979), so two
 * genuine requests with one request line and one signing key carry the same signature anyway: this key
 * refuses nothing a signature key would accept.
 */
function replayKey(owner: string, requestSigner: string, requestLine: string): string {
  return fastKeccak256(Buffer.from(JSON.stringify([owner, requestSigner, requestLine]), 'utf8'))
}

/** An address in one form (0x and lower case); other authorities (a contract's, as eth-connect reads it) lower-cased. */
const canonicalAuthority = (authority: string) => {
  const lower = authority.toLowerCase()
  return /^(?:0x)?[0-9a-f]{40}$/.test(lower) ? `0x${lower.slice(-40)}` : lower
}

/**
 * The authority that signed the last link of a chain @dcl/crypto verified, found as its validators pass
 * it along: a SIGNER or signed-entity link hands on its payload, an ephemeral link the address its
 * (normalised) login message names.
 */
function requestSignerOf(chain: AuthChain): string {
  let authority = ''
  for (const link of chain.slice(0, -1)) {
    authority =
      link.type === AuthLinkType.ECDSA_PERSONAL_EPHEMERAL ||
      link.type === AuthLinkType.ECDSA_EIP_1654_EPHEMERAL
        ? parseEphemeralPayload(link.payload).ephemeralAddress
        : link.payload
  }
  return canonicalAuthority(authority)
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
  if (delegation.expiresAt <= now) throw ephemeralExpired(delegation.expiresAt)
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
  const provider = usesContractWallet && rpcUrl ? authProviders(rpcUrl) : null
  const result = await Authenticator.validateSignature(expected, chain, provider, now)
  if (!result.ok) throw libraryRefusal(anyChainProblem(chain, now, result.message), result.message)
}

/**
 * What is wrong with a chain @dcl/crypto refused, in our words: an expired key when one is, else which link
 * does not verify (its text names the link's type; the rest of it, addresses and test values, stays in the log).
 */
function anyChainProblem(chain: AuthChain, now: number, theirs: string | undefined): string {
  if (theirs?.includes('Malformed')) {
    return 'the auth chain is malformed: a SIGNER link first, then its delegations, the signed request last'
  }
  for (const link of chain) {
    if (!link.type.includes('EPHEMERAL')) continue
    try {
      const { expiration } = parseEphemeralPayload(link.payload)
      if (!(expiration > now)) return ephemeralExpiredText(expiration)
    } catch {
      return 'an ephemeral link is not a Decentraland login message'
    }
  }
  const linkType = /Link type: (\w+)/.exec(theirs ?? '')?.[1] ?? ''
  if (linkType === 'ECDSA_EIP_1654_EPHEMERAL')
    return 'the contract wallet does not vouch for the ephemeral key (EIP-1654)'
  if (linkType.includes('EPHEMERAL')) return 'the ephemeral key is not signed by the owner'
  if (linkType.includes('SIGNED_ENTITY')) return 'the request is not signed by the key the chain delegates to'
  return 'the auth chain does not verify'
}
