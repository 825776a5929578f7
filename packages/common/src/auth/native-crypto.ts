import createKeccakHash from 'keccak'
import secp256k1 from 'secp256k1'

/*
 * libsecp256k1 and the Keccak reference code, native (prebuilt for linux-x64/darwin/win32; both packages
 * fall back to JavaScript elsewhere): every signed request and every claim voucher recovers a signer or
 * hashes, and native code spares them ethers' pure-JavaScript curve arithmetic and Keccak (PERFORMANCE.md).
 */

/** The sponge behind the keccak package's stream API: native, or its JavaScript twin (same methods). */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void
  absorb(data: Buffer): void
  squeeze(length: number): Buffer
}

/**
 * One Keccak-256 sponge for the process, reset before each hash (hashing is synchronous). The package's
 * API builds a Transform stream per hash, a cost and an allocation on every hash. Its `_state` is not
 * public API: the version is pinned and the tests compare every hash with ethers' (PERFORMANCE.md).
 */
const sponge = (createKeccakHash('keccak256') as unknown as { _state: KeccakSponge })._state
const RATE = 1088
const CAPACITY = 512

/** Keccak-256 of the bytes, as 32 bytes. */
export function keccak256Bytes(data: Uint8Array): Buffer {
  sponge.initialize(RATE, CAPACITY)
  sponge.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
  return sponge.squeeze(32)
}

/** Keccak-256 of the bytes, as ethers' keccak256 writes it: 0x and 64 lower-case hex digits. */
export const fastKeccak256 = (data: Uint8Array): string => `0x${keccak256Bytes(data).toString('hex')}`

const HEX = /^0x(?:[0-9a-fA-F]{2})*$/

/** 0x-prefixed hex as bytes: ethers' getBytes for the one input kind used here, without its per-byte loop. */
function hexBytes(hex: string): Buffer {
  if (!HEX.test(hex)) throw new TypeError(`invalid hex string: ${hex.slice(0, 20)}`)
  return Buffer.from(hex.slice(2), 'hex')
}

/** EIP-191 `hashMessage`: Keccak-256 of "\x19Ethereum Signed Message:\n" + byte length + message. */
function hashPersonalMessage(message: string): Uint8Array {
  const body = Buffer.from(message, 'utf8')
  return keccak256Bytes(
    Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, 'utf8'), body]),
  )
}

function addressOf(publicKey: Uint8Array): string {
  return `0x${fastKeccak256(publicKey.subarray(1)).slice(-40)}`
}

/** The lower-case address that made an EIP-191 personal signature of `message`, or null if none can. */
export function recoverPersonalSigner(message: string, signature: string): string | null {
  try {
    const bytes = hexBytes(signature)
    if (bytes.length !== 65) return null
    const v = bytes[64]!
    const recovery = v >= 27 ? v - 27 : v
    if (recovery !== 0 && recovery !== 1) return null
    return addressOf(
      secp256k1.ecdsaRecover(bytes.subarray(0, 64), recovery, hashPersonalMessage(message), false),
    )
  } catch {
    return null
  }
}

/** A 65-byte `r || s || v` signature (v = 27/28) of a 32-byte digest, as ethers' SigningKey.sign makes it. */
export function signDigest(digest: string, privateKey: string): string {
  const signature = signDigestBytes(hexBytes(digest), hexBytes(privateKey))
  return `0x${signature.toString('hex')}`
}

/** The same signature as bytes: r ‖ s ‖ v (v = 27/28), RFC 6979 like ethers'. */
export function signDigestBytes(digest: Uint8Array, privateKey: Uint8Array): Buffer {
  const { signature, recid } = secp256k1.ecdsaSign(digest, privateKey)
  const bytes = Buffer.allocUnsafe(65)
  bytes.set(signature)
  bytes[64] = 27 + recid
  return bytes
}
