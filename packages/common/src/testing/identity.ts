import {
  type Identity as SigningIdentity,
  type SignOptions,
  signedHeaders,
  createIdentity as signingIdentity,
} from '@genesis/wire/signing'
import { Wallet } from 'ethers'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'

export { type SignOptions, signedHeaders }

/** A user who signs requests the way a Decentraland client does: owner wallet + ephemeral key. */
export interface Identity extends SigningIdentity {
  wallet: Wallet
}

/** `expiresInMinutes` below zero makes an identity whose ephemeral key has already expired. */
export async function createIdentity(
  wallet: Wallet = Wallet.createRandom() as unknown as Wallet,
  expiresInMinutes = 60,
): Promise<Identity> {
  return { ...(await signingIdentity(wallet, { expiresInMinutes })), wallet }
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
