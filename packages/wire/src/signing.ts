// The signing side of signed fetch (ADR-44), shared by @genesis/client and the test kit. Browser-safe:
// nothing here (or in what it imports at run time) may reach a Node built-in, because the client is bundled
// for browsers.
//
// The links are made here with ethers, in the shapes @dcl/crypto's Authenticator makes them
// (initializeAuthChain, signPayload): @dcl/crypto is CommonJS and its Authenticator module loads eth-connect,
// @dcl/schemas and ajv, about 60 % of a browser bundle that only signs. The services verify with @dcl/crypto
// itself, and the tests sign requests both here and with decentraland-crypto-fetch.
import type { AuthChain, AuthIdentity, AuthLink } from '@dcl/crypto'
import { computeAddress, hashMessage, hexlify, randomBytes, SigningKey } from 'ethers'

export const AUTH_CHAIN_HEADER_PREFIX = 'x-identity-auth-chain-'
export const AUTH_TIMESTAMP_HEADER = 'x-identity-timestamp'
export const AUTH_METADATA_HEADER = 'x-identity-metadata'

/** What the last link of the chain signs: `method:path:timestamp:metadata`, lower-cased. */
export const signedFetchPayload = (
  method: string,
  path: string,
  timestamp: number | string,
  metadata: string,
) => [method, path, timestamp, metadata].join(':').toLowerCase()

/** Who signs requests: the owner's address and an ADR-44 auth chain delegating to an ephemeral key. */
export interface Identity {
  /** The owner's address, lower-case: what the services see as the caller. */
  address: string
  authIdentity: AuthIdentity
}

/** The part of an ethers Signer (a Wallet, or a browser wallet's `BrowserProvider.getSigner()`) used here. */
export interface MessageSigner {
  getAddress(): Promise<string>
  signMessage(message: string): Promise<string>
}

/**
 * The owner signs once (a personal message naming a fresh ephemeral key and its expiry); every request is
 * then signed by the ephemeral key, with no wallet prompt. `expiresInMinutes` below zero makes an identity
 * whose ephemeral key has already expired.
 */
export async function createIdentity(
  owner: MessageSigner,
  options: { expiresInMinutes?: number } = {},
): Promise<Identity> {
  const address = await owner.getAddress()
  const key = new SigningKey(hexlify(randomBytes(32)))
  const ephemeralAddress = computeAddress(key.publicKey)
  const expiration = new Date(Date.now() + (options.expiresInMinutes ?? 60) * 60_000)
  const message = `Decentraland Login\nEphemeral address: ${ephemeralAddress}\nExpiration: ${expiration.toISOString()}`
  const signature = await owner.signMessage(message)
  const authChain: AuthChain = [
    { type: 'SIGNER' as AuthLink['type'], payload: address, signature: '' },
    // A contract wallet's signature is not 65 bytes: the chain then says EIP-1654, as @dcl/crypto's does.
    {
      type: (isPersonal(signature) ? 'ECDSA_EPHEMERAL' : 'ECDSA_EIP_1654_EPHEMERAL') as AuthLink['type'],
      payload: message,
      signature,
    },
  ]
  const ephemeralIdentity = {
    address: ephemeralAddress,
    publicKey: key.publicKey,
    privateKey: key.privateKey,
  }
  return { address: address.toLowerCase(), authIdentity: { ephemeralIdentity, expiration, authChain } }
}

/** An identity from an auth chain made elsewhere (e.g. by a Decentraland login), its first link the owner. */
export function identityFromAuthChain(authIdentity: AuthIdentity): Identity {
  const owner = authIdentity.authChain[0]?.payload
  if (!owner) throw new Error('The auth chain has no owner link')
  return { address: owner.toLowerCase(), authIdentity }
}

export interface SignOptions {
  /** Sent as `x-identity-metadata`; signed with the request. */
  metadata?: Record<string, unknown>
  /** Milliseconds since the epoch; now by default. */
  timestamp?: number
}

/**
 * The signed-fetch headers of one request, as decentraland-crypto-fetch sends them: the last link signs
 * `method:path:timestamp:metadata` lower-cased, `path` being the URL's path without its query string.
 */
export function signedHeaders(
  identity: Identity,
  method: string,
  path: string,
  options: SignOptions = {},
): Record<string, string> {
  const timestamp = String(options.timestamp ?? Date.now())
  const metadata = JSON.stringify(options.metadata ?? {})
  const payload = signedFetchPayload(method, path.split('?', 1)[0] ?? path, timestamp, metadata)
  const headers: Record<string, string> = {
    [AUTH_TIMESTAMP_HEADER]: timestamp,
    [AUTH_METADATA_HEADER]: metadata,
  }
  const key = new SigningKey(identity.authIdentity.ephemeralIdentity.privateKey)
  const signed: AuthLink = {
    type: 'ECDSA_SIGNED_ENTITY' as AuthLink['type'],
    payload,
    signature: key.sign(hashMessage(payload)).serialized,
  }
  ;[...identity.authIdentity.authChain, signed].forEach((link, i) => {
    headers[`${AUTH_CHAIN_HEADER_PREFIX}${i}`] = JSON.stringify(link)
  })
  return headers
}

/** `0x` and 65 bytes: an externally owned account's personal signature. */
const isPersonal = (signature: string) => signature.length === 132
