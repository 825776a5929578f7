// The signing side of signed fetch, shared by @genesis/client and the test kit. Browser-safe: nothing here
// (or in what it imports at run time) may reach a Node built-in, because the client is bundled for browsers.
import { Authenticator, type AuthIdentity } from '@dcl/crypto'
import { Wallet } from 'ethers'
import {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  signedFetchPayload,
} from './auth/headers.js'

export { AUTH_CHAIN_HEADER_PREFIX, AUTH_METADATA_HEADER, AUTH_TIMESTAMP_HEADER, signedFetchPayload }

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
  const ephemeral = Wallet.createRandom()
  const authIdentity = await Authenticator.initializeAuthChain(
    address,
    {
      address: ephemeral.address,
      publicKey: ephemeral.signingKey.publicKey,
      privateKey: ephemeral.privateKey,
    },
    options.expiresInMinutes ?? 60,
    (message) => owner.signMessage(message),
  )
  return { address: address.toLowerCase(), authIdentity }
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
  Authenticator.signPayload(identity.authIdentity, payload).forEach((link, i) => {
    headers[`${AUTH_CHAIN_HEADER_PREFIX}${i}`] = JSON.stringify(link)
  })
  return headers
}
