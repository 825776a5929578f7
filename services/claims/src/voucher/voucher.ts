import { signDigest } from '@genesis/common'
import {
  computeAddress,
  concat,
  Interface,
  keccak256,
  SigningKey,
  type TypedDataDomain,
  TypedDataEncoder,
  type TypedDataField,
  zeroPadValue,
} from 'ethers'

/** EIP-712 domain name and version of the RewardsDispenser contract (DESIGN §4). */
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

/** The uuid as 16 bytes left-padded with zeros to 32. */
export const claimIdToBytes32 = (uuid: string) =>
  zeroPadValue(`0x${uuid.replaceAll('-', '').toLowerCase()}`, 32)

export const voucherDomain = (chainId: string, contract: string): TypedDataDomain => ({
  name: VOUCHER_DOMAIN_NAME,
  version: VOUCHER_DOMAIN_VERSION,
  chainId: BigInt(chainId),
  verifyingContract: contract,
})

const MAX_CACHED_DOMAINS = 1024

/**
 * Signs claim vouchers with the service key. Equivalent to Wallet.signTypedData (the same ethers encoder,
 * the same signature), but synchronous, natively signed, and with the encoder and each domain separator
 * built once.
 */
export function createVoucherSigner(privateKey: string): VoucherSigner {
  const key = new SigningKey(privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`)
  const encoder = TypedDataEncoder.from(VOUCHER_TYPES)
  const domainSeparators = new Map<string, string>()

  const domainSeparator = (chainId: string, contract: string) => {
    const cacheKey = `${chainId}:${contract}`
    let separator = domainSeparators.get(cacheKey)
    if (separator === undefined) {
      if (domainSeparators.size >= MAX_CACHED_DOMAINS) domainSeparators.clear()
      separator = TypedDataEncoder.hashDomain(voucherDomain(chainId, contract))
      domainSeparators.set(cacheKey, separator)
    }
    return separator
  }

  return {
    address: computeAddress(key.publicKey).toLowerCase(),
    sign(request) {
      const voucher: Voucher = {
        claimId: claimIdToBytes32(request.claimId),
        beneficiary: request.beneficiary,
        itemIds: request.itemIds,
        expiresAt: request.expiresAt,
      }
      const digest = keccak256(
        concat(['0x1901', domainSeparator(request.chainId, request.contract), encoder.hash(voucher)]),
      )
      // libsecp256k1 signs ~10x faster than SigningKey, with the same deterministic (RFC 6979) result
      const signature = signDigest(digest, key.privateKey)
      const transactionPayload = claimInterface.encodeFunctionData('claim', [voucher, signature])
      return { voucher, signature, transactionPayload, transactionPayloadHash: keccak256(transactionPayload) }
    },
  }
}
