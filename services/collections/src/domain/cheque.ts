import { type TypedDataDomain, TypedDataEncoder, verifyTypedData } from 'ethers'
import { CONSUME_SLOTS_TYPES } from '../schemas/cheque.js'

/** A third party's signed promise to pay item slots for the items it sends to review. */
export interface Cheque {
  qty: number
  salt: string
  signature: string
}

// The EIP-712 type and domain a client signs with are public: they live with the schemas.
export { CONSUME_SLOTS_TYPES, type RegistryDomainConfig, registryDomain } from '../schemas/cheque.js'

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
