import { Authenticator, type AuthIdentity } from '@dcl/crypto'
import { Wallet } from 'ethers'

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
 * then signed by the ephemeral key, with no wallet prompt.
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
