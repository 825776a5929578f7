import { getBytes, hashMessage, keccak256 } from 'ethers'
import secp256k1 from 'secp256k1'

/*
 * libsecp256k1 (native, prebuilt for linux-x64/darwin/win32; the package falls back to JavaScript
 * elsewhere): recovering a signer costs ~0.1 ms against ~2 ms in pure JavaScript, which is most of the
 * cost of a signed request.
 */

function addressOf(publicKey: Uint8Array): string {
  return `0x${keccak256(publicKey.subarray(1)).slice(-40)}`
}

/** The lower-case address that made an EIP-191 personal signature of `message`, or null if none can. */
export function recoverPersonalSigner(message: string, signature: string): string | null {
  try {
    const bytes = getBytes(signature)
    if (bytes.length !== 65) return null
    const v = bytes[64]!
    const recovery = v >= 27 ? v - 27 : v
    if (recovery !== 0 && recovery !== 1) return null
    return addressOf(
      secp256k1.ecdsaRecover(bytes.subarray(0, 64), recovery, getBytes(hashMessage(message)), false),
    )
  } catch {
    return null
  }
}

/** A 65-byte `r || s || v` signature (v = 27/28) of a 32-byte digest, as ethers' SigningKey.sign makes it. */
export function signDigest(digest: string, privateKey: string): string {
  const { signature, recid } = secp256k1.ecdsaSign(getBytes(digest), getBytes(privateKey))
  return `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`
}
