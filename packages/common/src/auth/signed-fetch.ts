import type { IncomingHttpHeaders } from 'node:http'
import {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  type AuthChain,
  Authenticator,
  type AuthLink,
  parseEphemeralPayload,
} from '@dcl/crypto'
import ethConnect from 'eth-connect'
import type { Sql } from '../db/database.js'
import { UnauthorizedError } from '../errors.js'
import { recoverPersonalSigner } from './native-crypto.js'

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
}

export interface VerifiedSigner {
  /** The owner of the chain, lower-case. */
  address: string
  metadata: Record<string, unknown>
  /** The signature of the last link: what replay protection remembers. */
  signature: string
  timestamp: number
}

export interface SignedFetchOptions {
  maxAgeS: number
  /** Verifies contract-wallet (EIP-1654) chains; without it they are refused. */
  rpcUrl?: string | undefined
  now?: () => number
}

const refuse = (reason: string, message: string) => new UnauthorizedError(message, { data: { reason } })

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function parseChain(headers: IncomingHttpHeaders): AuthChain {
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

function parseTimestamp(headers: IncomingHttpHeaders, options: SignedFetchOptions): number {
  const raw = header(headers, AUTH_TIMESTAMP_HEADER)
  if (raw === undefined) throw refuse('missing', `Missing ${AUTH_TIMESTAMP_HEADER} header`)
  if (!/^\d{1,16}$/.test(raw)) {
    throw refuse(
      'malformed',
      `Header ${AUTH_TIMESTAMP_HEADER} must be milliseconds since epoch, got "${raw}"`,
    )
  }
  const timestamp = Number(raw)
  const skew = (options.now ?? Date.now)() - timestamp
  if (Math.abs(skew) > options.maxAgeS * 1000) {
    throw refuse(
      'expired',
      `Signature expired: ${AUTH_TIMESTAMP_HEADER} is ${Math.round(Math.abs(skew) / 1000)}s ${skew > 0 ? 'in the past' : 'in the future'}, the limit is ${options.maxAgeS}s`,
    )
  }
  return timestamp
}

function parseMetadata(headers: IncomingHttpHeaders): { raw: string; value: Record<string, unknown> } {
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
  if (metadata.signer === KERNEL_SCENE_SIGNER) {
    throw refuse(
      'forbidden_signer',
      'Requests signed by a scene (decentraland-kernel-scene) are not accepted',
    )
  }
  return { raw, value: metadata }
}

export const signedFetchPayload = (
  method: string,
  path: string,
  timestamp: number | string,
  metadata: string,
) => [method, path, timestamp, metadata].join(':').toLowerCase()

/** Checks the auth chain of one request (everything but replay, which needs the database). */
export async function verifySignedFetch(
  request: SignedRequest,
  options: SignedFetchOptions,
): Promise<VerifiedSigner> {
  const sent = sentRead(request)
  const known = sent && verifiedReads.get(sent.last)
  if (sent && known && sameRead(known.sent, sent)) {
    parseTimestamp(request.headers, options)
    if (known.ephemeralExpiresAt <= (options.now ?? Date.now)())
      throw invalid('the ephemeral key has expired')
    return known.signer
  }
  const chain = parseChain(request.headers)
  const timestamp = parseTimestamp(request.headers, options)
  const metadata = parseMetadata(request.headers)
  const expected = signedFetchPayload(request.method, request.path, timestamp, metadata.raw)
  const last = chain[chain.length - 1]!
  if (last.payload !== expected) {
    throw refuse(
      'payload_mismatch',
      `The signed payload does not match this request: expected "${expected}", signed "${last.payload}"`,
    )
  }
  // Known for personal chains only: how long a remembered read may be answered from memory.
  let ephemeralExpiresAt: number | undefined
  if (isPersonalChain(chain)) ephemeralExpiresAt = (await verifyPersonalChain(chain, options)).expiresAt
  else await verifyAnyChain(chain, expected, options)
  const address = Authenticator.ownerAddress(chain).toLowerCase()
  if (!/^0x[0-9a-f]{40}$/.test(address))
    throw refuse('malformed', 'The auth chain does not start with a signer address')
  const signer = { address, metadata: metadata.value, signature: last.signature ?? '', timestamp }
  if (sent !== undefined && ephemeralExpiresAt !== undefined) rememberRead(sent, signer, ephemeralExpiresAt)
  return signer
}

// A client re-sending a signed read (retries, polling within the age window) sends the very same headers,
// and everything verified of them but the clock stays true: the signer is remembered under all of them,
// and only the timestamp's age and the ephemeral key's expiry are checked again. Reads with personal
// chains only: a mutating request is never answered twice (replays are refused), so remembering it would
// only cost memory. Bounded; the oldest entries go first.
interface VerifiedRead {
  sent: SentRead
  signer: VerifiedSigner
  ephemeralExpiresAt: number
}
const MAX_VERIFIED_READS = 10_000
/** By the last link's header, which holds the request's own signature; the rest is compared on a hit. */
const verifiedReads = new Map<string, VerifiedRead>()

/** Every input of the verification, as sent. */
interface SentRead {
  method: string
  path: string
  timestamp: string
  metadata: string
  owner: string
  ephemeral: string
  last: string
}

/** A read with a three-link chain, as sent; undefined for anything else. */
function sentRead({ method, path, headers }: SignedRequest): SentRead | undefined {
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

const sameRead = (a: SentRead, b: SentRead) =>
  a.last === b.last &&
  a.method === b.method &&
  a.path === b.path &&
  a.timestamp === b.timestamp &&
  a.metadata === b.metadata &&
  a.owner === b.owner &&
  a.ephemeral === b.ephemeral

function rememberRead(sent: SentRead, signer: VerifiedSigner, ephemeralExpiresAt: number) {
  if (verifiedReads.size >= MAX_VERIFIED_READS) verifiedReads.delete(verifiedReads.keys().next().value!)
  // Shared by every request that re-sends these headers.
  Object.freeze(signer.metadata)
  verifiedReads.set(sent.last, { sent, signer: Object.freeze(signer), ephemeralExpiresAt })
}

const invalid = (message: string) => refuse('invalid_signature', `Invalid signature: ${message}`)

/** The chain every wallet-signed request has: owner → ephemeral key (personal sign) → request. */
const isPersonalChain = (chain: AuthChain) =>
  chain.length === 3 &&
  chain[0]!.type === 'SIGNER' &&
  chain[1]!.type === 'ECDSA_EPHEMERAL' &&
  chain[2]!.type === 'ECDSA_SIGNED_ENTITY'

interface Delegation {
  ephemeral: string
  expiresAt: number
}

// The owner → ephemeral link is the same on every request of a session: verify it once with @dcl/crypto.
const MAX_DELEGATIONS = 10_000
const delegations = new Map<string, Delegation>()

async function verifiedDelegation(chain: AuthChain, now: number): Promise<Delegation> {
  const key = `${chain[0]!.payload}\n${chain[1]!.payload}\n${chain[1]!.signature}`
  const known = delegations.get(key)
  if (known) return known
  let parsed: { ephemeralAddress: string; expiration: number }
  try {
    parsed = parseEphemeralPayload(chain[1]!.payload)
  } catch {
    throw invalid('the ephemeral link is not a Decentraland login message')
  }
  const result = await Authenticator.validateSignature(parsed.ephemeralAddress, chain.slice(0, 2), null, now)
  if (!result.ok) throw invalid(result.message ?? 'the ephemeral key is not signed by the owner')
  const delegation = { ephemeral: parsed.ephemeralAddress.toLowerCase(), expiresAt: parsed.expiration }
  if (delegations.size >= MAX_DELEGATIONS) delegations.delete(delegations.keys().next().value!)
  delegations.set(key, delegation)
  return delegation
}

async function verifyPersonalChain(chain: AuthChain, options: SignedFetchOptions): Promise<Delegation> {
  const now = (options.now ?? Date.now)()
  const delegation = await verifiedDelegation(chain, now)
  if (delegation.expiresAt <= now) throw invalid('the ephemeral key has expired')
  const last = chain[2]!
  if (recoverPersonalSigner(last.payload, last.signature ?? '') !== delegation.ephemeral) {
    throw invalid('the request is not signed by the ephemeral key')
  }
  return delegation
}

async function verifyAnyChain(chain: AuthChain, expected: string, options: SignedFetchOptions) {
  const usesContractWallet = chain.some((link) => link.type.includes('EIP_1654'))
  if (usesContractWallet && !options.rpcUrl) {
    throw refuse(
      'invalid_signature',
      'Contract-wallet (EIP-1654) signatures cannot be verified: no RPC is configured',
    )
  }
  const provider = usesContractWallet && options.rpcUrl ? new ethConnect.HTTPProvider(options.rpcUrl) : null
  const result = await Authenticator.validateSignature(expected, chain, provider, (options.now ?? Date.now)())
  if (!result.ok) throw invalid(result.message ?? 'the auth chain does not verify')
}

export const isMutating = (method: string) => MUTATING_METHODS.has(method.toUpperCase())

/** The signature of an accepted mutating request, kept until it could no longer pass the age check. */
export interface UsedSignature {
  signature: string
  expiresAt: Date
}

export const usedSignature = (signer: VerifiedSigner, maxAgeS: number): UsedSignature => ({
  signature: signer.signature,
  expiresAt: new Date(signer.timestamp + maxAgeS * 1000),
})

/**
 * The statement that records a used signature, in the service's database so that every replica refuses
 * a replay: one row when the signature is new, none when it was used before. A route that records it
 * itself (route config `replay: 'route'`) puts it in its own write, as a CTE, so that the request and its
 * effect commit together in one statement.
 */
export const recordSignature = (sql: Sql, used: UsedSignature) => sql`
  insert into signed_fetch_replays (signature, expires_at) values (${used.signature}, ${used.expiresAt})
  on conflict (signature) do nothing
  returning 1`

/** Whether a signature was recorded already: for a route that records it itself and refused the request first. */
export async function signatureUsed(sql: Sql, used: UsedSignature): Promise<boolean> {
  const [row] = await sql`select 1 from signed_fetch_replays where signature = ${used.signature}`
  return row !== undefined
}

export const replayRefused = () => refuse('replayed', 'This signed request was already used (replay refused)')

export async function rememberSignature(sql: Sql, used: UsedSignature): Promise<void> {
  const inserted = await recordSignature(sql, used)
  if (inserted.length === 0) throw replayRefused()
}

export async function pruneSignatures(sql: Sql): Promise<number> {
  const result = await sql`delete from signed_fetch_replays where expires_at < now()`
  return result.count
}
