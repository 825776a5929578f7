import { keccak256Bytes, signDigestBytes } from '@genesis/common'
import {
  computeAddress,
  Interface,
  keccak256,
  SigningKey,
  type TypedDataDomain,
  TypedDataEncoder,
  type TypedDataField,
  toUtf8Bytes,
} from 'ethers'

/** EIP-712 domain name and version of the RewardsDispenser contract (its constructor's EIP712 name and version). */
export const VOUCHER_DOMAIN_NAME = 'RewardsDispenser'
export const VOUCHER_DOMAIN_VERSION = '1'

export const VOUCHER_TYPES: Record<string, TypedDataField[]> = {
  Claim: [
    { name: 'claimId', type: 'bytes32' },
    { name: 'beneficiary', type: 'address' },
    { name: 'itemIds', type: 'uint256[]' },
    { name: 'expiresAt', type: 'uint256' },
  ],
}

export const CLAIM_FUNCTION =
  'function claim((bytes32 claimId, address beneficiary, uint256[] itemIds, uint256 expiresAt) voucher, bytes signature)'
export const claimInterface = new Interface([CLAIM_FUNCTION])

export interface Voucher {
  claimId: string
  beneficiary: string
  itemIds: string[]
  expiresAt: number
}

export interface VoucherRequest {
  /** The claim's uuid. */
  claimId: string
  beneficiary: string
  /** uint256 item ids as decimal strings, in the order of the request. */
  itemIds: string[]
  /** Unix seconds. */
  expiresAt: number
  chainId: string
  contract: string
}

export interface SignedVoucher {
  voucher: Voucher
  signature: string
  transactionPayload: string
  transactionPayloadHash: string
}

export interface VoucherSigner {
  /** The signer's address, lower-case. */
  readonly address: string
  sign(request: VoucherRequest): SignedVoucher
}

/** One 32-byte ABI word: hex digits (no 0x) left-padded with zeros. */
const word = (hex: string) => hex.padStart(64, '0')

/** The uuid as 16 bytes left-padded with zeros to 32. */
export const claimIdToBytes32 = (uuid: string) => `0x${word(uuid.replaceAll('-', '').toLowerCase())}`

export const voucherDomain = (chainId: string, contract: string): TypedDataDomain => ({
  name: VOUCHER_DOMAIN_NAME,
  version: VOUCHER_DOMAIN_VERSION,
  chainId: BigInt(chainId),
  verifyingContract: contract,
})

const MAX_CACHED_DOMAINS = 1024

/** "Claim(bytes32 claimId,address beneficiary,uint256[] itemIds,uint256 expiresAt)" */
const CLAIM_TYPE = TypedDataEncoder.from(VOUCHER_TYPES).encodeType('Claim')
const CLAIM_TYPE_HASH = Buffer.from(keccak256(toUtf8Bytes(CLAIM_TYPE)).slice(2), 'hex')
const CLAIM_SELECTOR = Buffer.from(claimInterface.getFunction('claim')!.selector.slice(2), 'hex')
const EIP712_PREFIX = Buffer.from([0x19, 0x01])
const WORD = 32
const SIGNATURE_BYTES = 65

/** A uint256 (decimal string or number) as a big-endian word at `offset`. */
function writeUint256(target: Buffer, offset: number, value: string | number) {
  let rest = BigInt(value)
  for (let at = offset + WORD - 8; at >= offset; at -= 8) {
    target.writeBigUInt64BE(BigInt.asUintN(64, rest), at)
    rest >>= 64n
  }
}

/**
 * Signs claim vouchers with the service key: the same digest as TypedDataEncoder, the same signature as
 * Wallet.signTypedData and the same calldata as Interface.encodeFunctionData (the tests compare all
 * three), but encoded by hand for this one fixed shape, straight into the calldata's bytes: the voucher's
 * words are hashed where they lie: ethers' generic encoders and its JavaScript Keccak were most of a
 * create's CPU (BENCHMARKS.md); each domain separator is built once.
 *
 * calldata = selector ‖ offset of the tuple (0x40) ‖ offset of the signature
 *          ‖ tuple: claimId ‖ beneficiary ‖ offset of itemIds in the tuple (0x80) ‖ expiresAt ‖ itemIds (length, words)
 *          ‖ signature: length (65) ‖ r ‖ s ‖ v, padded to 96 bytes
 */
export function createVoucherSigner(privateKey: string): VoucherSigner {
  const key = new SigningKey(privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`)
  const keyBytes = Buffer.from(key.privateKey.slice(2), 'hex')
  const domainSeparators = new Map<string, Buffer>()

  const domainSeparator = (chainId: string, contract: string) => {
    const cacheKey = `${chainId}:${contract}`
    let separator = domainSeparators.get(cacheKey)
    if (separator === undefined) {
      if (domainSeparators.size >= MAX_CACHED_DOMAINS) domainSeparators.clear()
      separator = Buffer.from(TypedDataEncoder.hashDomain(voucherDomain(chainId, contract)).slice(2), 'hex')
      domainSeparators.set(cacheKey, separator)
    }
    return separator
  }

  return {
    address: computeAddress(key.publicKey).toLowerCase(),
    sign(request) {
      const count = request.itemIds.length
      const tuple = 4 + 2 * WORD
      const items = tuple + 5 * WORD
      const signatureAt = items + count * WORD
      const calldata = Buffer.alloc(signatureAt + WORD + 3 * WORD)
      CLAIM_SELECTOR.copy(calldata, 0)
      writeUint256(calldata, 4, 0x40)
      writeUint256(calldata, 4 + WORD, signatureAt - 4)
      calldata.write(request.claimId.replaceAll('-', ''), tuple + 16, 'hex')
      calldata.write(request.beneficiary.slice(2), tuple + WORD + 12, 'hex')
      writeUint256(calldata, tuple + 2 * WORD, 0x80)
      writeUint256(calldata, tuple + 3 * WORD, request.expiresAt)
      writeUint256(calldata, tuple + 4 * WORD, count)
      for (const [i, itemId] of request.itemIds.entries()) writeUint256(calldata, items + i * WORD, itemId)

      // EIP-712: hashStruct(Claim) = keccak256(typeHash ‖ claimId ‖ beneficiary ‖ keccak256(itemIds) ‖ expiresAt)
      const structHash = keccak256Bytes(
        Buffer.concat([
          CLAIM_TYPE_HASH,
          calldata.subarray(tuple, tuple + 2 * WORD),
          keccak256Bytes(calldata.subarray(items, signatureAt)),
          calldata.subarray(tuple + 3 * WORD, tuple + 4 * WORD),
        ]),
      )
      const digest = keccak256Bytes(
        Buffer.concat([EIP712_PREFIX, domainSeparator(request.chainId, request.contract), structHash]),
      )
      // libsecp256k1, natively: the same deterministic (RFC 6979) signature as ethers' SigningKey, without its
      // JavaScript curve arithmetic on every create
      const signature = signDigestBytes(digest, keyBytes)
      writeUint256(calldata, signatureAt, SIGNATURE_BYTES)
      signature.copy(calldata, signatureAt + WORD)
      return {
        voucher: {
          claimId: `0x${calldata.toString('hex', tuple, tuple + WORD)}`,
          beneficiary: request.beneficiary,
          itemIds: request.itemIds,
          expiresAt: request.expiresAt,
        },
        signature: `0x${signature.toString('hex')}`,
        transactionPayload: `0x${calldata.toString('hex')}`,
        transactionPayloadHash: `0x${keccak256Bytes(calldata).toString('hex')}`,
      }
    },
  }
}
