import { Authenticator, type AuthIdentity } from '@dcl/crypto'
import { Wallet } from 'ethers'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  signedFetchPayload,
} from '../auth/signed-fetch.js'

/** A user who signs requests the way a Decentraland client does: owner wallet + ephemeral key. */
export interface Identity {
  /** The owner's address, lower-case. */
  address: string
  wallet: Wallet
  authIdentity: AuthIdentity
}

/** `expiresInMinutes` below zero makes an identity whose ephemeral key has already expired. */
export async function createIdentity(
  wallet: Wallet = Wallet.createRandom() as unknown as Wallet,
  expiresInMinutes = 60,
): Promise<Identity> {
  const ephemeral = Wallet.createRandom()
  const authIdentity = await Authenticator.initializeAuthChain(
    wallet.address,
    {
      address: ephemeral.address,
      publicKey: ephemeral.signingKey.publicKey,
      privateKey: ephemeral.privateKey,
    },
    expiresInMinutes,
    (message) => wallet.signMessage(message),
  )
  return { address: wallet.address.toLowerCase(), wallet, authIdentity }
}

export interface SignOptions {
  metadata?: Record<string, unknown>
  timestamp?: number
}

/** The signed-fetch headers for one request; `path` is the URL path as sent (a query string is cut off). */
export function signedHeaders(
  identity: Identity,
  method: string,
  path: string,
  options: SignOptions = {},
): Record<string, string> {
  const timestamp = options.timestamp ?? Date.now()
  const metadata = JSON.stringify(options.metadata ?? {})
  const payload = signedFetchPayload(method, path.split('?', 1)[0] ?? path, timestamp, metadata)
  const chain = Authenticator.signPayload(identity.authIdentity, payload)
  const headers: Record<string, string> = {
    [AUTH_TIMESTAMP_HEADER]: String(timestamp),
    [AUTH_METADATA_HEADER]: metadata,
  }
  chain.forEach((link, i) => {
    headers[`${AUTH_CHAIN_HEADER_PREFIX}${i}`] = JSON.stringify(link)
  })
  return headers
}

export type SignedInjectOptions = InjectOptions & { method: string; url: string } & SignOptions

/** app.inject with freshly signed headers for this method and path. */
export function signedInject(
  app: FastifyInstance,
  identity: Identity,
  options: SignedInjectOptions,
): Promise<LightMyRequestResponse> {
  const { metadata, timestamp, ...inject } = options
  const headers = { ...signedHeaders(identity, inject.method, inject.url, { metadata, timestamp }) }
  return app.inject({
    ...inject,
    headers: { ...(inject.headers as Record<string, string> | undefined), ...headers },
  })
}
