import { type TypedDataDomain, TypedDataEncoder, toBeHex, verifyTypedData } from 'ethers'

/** A third party's signed promise to pay item slots for the items it sends to review. */
export interface Cheque {
  qty: number
  salt: string
  signature: string
}

export interface RegistryDomainConfig {
  name: string
  address: string
  chainId: number
}

/** The EIP-712 type the Third Party Registry checks when the committee consumes the slots. */
export const CONSUME_SLOTS_TYPES = {
  ConsumeSlots: [
    { name: 'thirdPartyId', type: 'string' },
    { name: 'qty', type: 'uint256' },
    { name: 'salt', type: 'bytes32' },
  ],
}

/** The registry's domain: it carries the chain id as a 32-byte `salt`, not as `chainId`. */
export const registryDomain = (config: RegistryDomainConfig): TypedDataDomain => ({
  name: config.name,
  version: '1',
  verifyingContract: config.address,
  salt: toBeHex(config.chainId, 32),
})

const chequeValue = (thirdPartyId: string, cheque: Cheque) => ({
  thirdPartyId,
  qty: cheque.qty,
  salt: cheque.salt,
})

/** The signer of the cheque (lower-case), or null when the signature is not a valid one. */
export function recoverChequeSigner(
  domain: TypedDataDomain,
  thirdPartyId: string,
  cheque: Cheque,
): string | null {
  try {
    return verifyTypedData(
      domain,
      CONSUME_SLOTS_TYPES,
      chequeValue(thirdPartyId, cheque),
      cheque.signature,
    ).toLowerCase()
  } catch {
    return null
  }
}

/** The digest the registry keys its receipts by once the cheque is consumed. */
export const chequeMessageHash = (domain: TypedDataDomain, thirdPartyId: string, cheque: Cheque): string =>
  TypedDataEncoder.hash(domain, CONSUME_SLOTS_TYPES, chequeValue(thirdPartyId, cheque))
