import { CONSUME_SLOTS_TYPES, registryDomain } from '@genesis/wire/collections'
import type { TypedDataDomain, TypedDataField } from 'ethers'

/** The Third Party Registry the collections service checks cheques against (its THIRD_PARTY_REGISTRY_*). */
export interface RegistryConfig {
  name: string
  address: string
  chainId: number
}

export interface Cheque {
  qty: number
  salt: string
  signature: string
}

/** The part of an ethers Signer that signs EIP-712 data. */
export interface TypedDataSigner {
  signTypedData(
    domain: TypedDataDomain,
    types: Record<string, TypedDataField[]>,
    value: Record<string, unknown>,
  ): Promise<string>
}

/**
 * A third party's `ConsumeSlots` cheque for `qty` items, signed by one of its managers: what a third-party
 * publish sends. The type and domain are the collections service's own (imported, not copied).
 */
export async function signCheque(
  signer: TypedDataSigner,
  options: { thirdPartyId: string; qty: number; registry: RegistryConfig; salt?: string },
): Promise<Cheque> {
  const salt = options.salt ?? randomBytes32()
  const value = { thirdPartyId: options.thirdPartyId, qty: options.qty, salt }
  const signature = await signer.signTypedData(registryDomain(options.registry), CONSUME_SLOTS_TYPES, value)
  return { qty: options.qty, salt, signature }
}

function randomBytes32(): string {
  const bytes = new Uint8Array(32)
  globalThis.crypto.getRandomValues(bytes)
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`
}
