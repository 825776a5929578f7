import type { Cheque } from '@genesis/wire/collections'
import { CONSUME_SLOTS_TYPES } from '@genesis/wire/collections'
import { N, recoverAddress, Signature, type TypedDataDomain, TypedDataEncoder, toBeHex } from 'ethers'

/** A third party's signed promise to pay item slots for the items it sends to review. */
export type { Cheque } from '@genesis/wire/collections'
// The EIP-712 type and domain a client signs with are public: they live with the schemas.
export { CONSUME_SLOTS_TYPES, type RegistryDomainConfig, registryDomain } from '@genesis/wire/collections'

const chequeValue = (thirdPartyId: string, cheque: Pick<Cheque, 'qty' | 'salt'>) => ({
  thirdPartyId,
  qty: cheque.qty,
  salt: cheque.salt,
})

/**
 * The cheque's EIP-712 digest (third party, qty, salt and the registry's domain): what its manager signed,
 * what the registry keys its receipts by once consumed, and so what identifies a cheque here. Every
 * spelling of the salt (either case) and every signature of it, re-spelled or signed again, share it.
 */
export const chequeDigest = (
  domain: TypedDataDomain,
  thirdPartyId: string,
  cheque: Pick<Cheque, 'qty' | 'salt'>,
): string => TypedDataEncoder.hash(domain, CONSUME_SLOTS_TYPES, chequeValue(thirdPartyId, cheque))

const HALF_N = N / 2n

/**
 * The signature in the one form the registry's ECDSA check takes: 65 bytes r ‖ s ‖ v, low s, v 27 or 28,
 * lower-case hex; null when it is not a signature at all. A 64-byte compact signature, v written 0/1 or
 * chain-specific, and upper-case hex all come out the same.
 */
export function canonicalSignature(signature: string): string | null {
  try {
    const parsed = Signature.from(signature)
    const s = BigInt(parsed.s)
    // The twin (r, N − s) with the other parity is the same signature; ethers refuses most high-s values.
    if (s > HALF_N) {
      return Signature.from({ r: parsed.r, s: toBeHex(N - s, 32), yParity: parsed.yParity === 0 ? 1 : 0 })
        .serialized
    }
    return parsed.serialized.toLowerCase()
  } catch {
    return null
  }
}

/** The signer of the cheque's digest (lower-case), or null when the signature is not a valid one. */
export function recoverChequeSigner(
  domain: TypedDataDomain,
  thirdPartyId: string,
  cheque: Cheque,
): string | null {
  const signature = canonicalSignature(cheque.signature)
  if (signature === null) return null
  try {
    return recoverAddress(chequeDigest(domain, thirdPartyId, cheque), signature).toLowerCase()
  } catch {
    return null
  }
}
