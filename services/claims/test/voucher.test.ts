import { keccak256, TypedDataEncoder, verifyTypedData, Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import {
  claimIdToBytes32,
  claimInterface,
  createVoucherSigner,
  VOUCHER_TYPES,
  voucherDomain,
} from '../src/chain/voucher.js'

const wallet = Wallet.createRandom()
const signer = createVoucherSigner(wallet.privateKey)
const request = {
  claimId: '0b6a1f4e-8a55-4c1e-9f0e-3c2b7d9a1e55',
  beneficiary: '0x00000000000000000000000000000000000000aa',
  itemIds: ['7', '115792089237316195423570985008687907853269984665640564039457584007913129639935', '0'],
  expiresAt: 1_900_000_000,
  chainId: '137',
  contract: '0x1111111111111111111111111111111111111111',
}

describe('voucher signing', () => {
  it('exposes the signer address, lower-case', () => {
    expect(signer.address).toBe(wallet.address.toLowerCase())
  })

  it('puts the uuid in claimId as 16 bytes left-padded to 32', () => {
    expect(claimIdToBytes32(request.claimId)).toBe(`0x${'00'.repeat(16)}0b6a1f4e8a554c1e9f0e3c2b7d9a1e55`)
  })

  it('signs an EIP-712 Claim that recovers to the service signer over the RewardsDispenser domain', () => {
    const signed = signer.sign(request)
    const domain = {
      name: 'RewardsDispenser',
      version: '1',
      chainId: 137,
      verifyingContract: request.contract,
    }
    const recovered = verifyTypedData(domain, VOUCHER_TYPES, signed.voucher, signed.signature)
    expect(recovered.toLowerCase()).toBe(wallet.address.toLowerCase())
  })

  it('produces exactly the signature of Wallet.signTypedData (RFC 6979 is deterministic)', async () => {
    const signed = signer.sign(request)
    const reference = await wallet.signTypedData(
      voucherDomain(request.chainId, request.contract),
      VOUCHER_TYPES,
      signed.voucher,
    )
    expect(signed.signature).toBe(reference)
  })

  it('encodes claim(voucher, signature) calldata and hashes it with keccak256', () => {
    const signed = signer.sign(request)
    const decoded = claimInterface.decodeFunctionData('claim', signed.transactionPayload)
    const [voucher, signature] = [decoded[0], decoded[1]]
    expect(signed.transactionPayload.slice(0, 10)).toBe(claimInterface.getFunction('claim')!.selector)
    expect(voucher.claimId).toBe(claimIdToBytes32(request.claimId))
    expect(voucher.beneficiary.toLowerCase()).toBe(request.beneficiary)
    expect(voucher.itemIds.map(String)).toEqual(request.itemIds)
    expect(voucher.expiresAt).toBe(BigInt(request.expiresAt))
    expect(signature).toBe(signed.signature)
    expect(signed.transactionPayloadHash).toBe(keccak256(signed.transactionPayload))
  })

  it('builds byte for byte the digest, calldata and hash that ethers builds, for 1 to 100 items', () => {
    for (const count of [1, 2, 100]) {
      const itemIds = Array.from({ length: count }, (_, i) => (BigInt(i) * 10n ** 70n + 7n).toString())
      const signed = signer.sign({ ...request, itemIds })
      const domain = voucherDomain(request.chainId, request.contract)
      expect(verifyTypedData(domain, VOUCHER_TYPES, signed.voucher, signed.signature).toLowerCase()).toBe(
        signer.address,
      )
      expect(signed.transactionPayload).toBe(
        claimInterface.encodeFunctionData('claim', [signed.voucher, signed.signature]),
      )
      expect(signed.transactionPayloadHash).toBe(keccak256(signed.transactionPayload))
    }
  })

  it('binds the signature to chain and contract (another domain recovers another address)', () => {
    const signed = signer.sign(request)
    const otherDomain = voucherDomain('1', request.contract)
    const digest = TypedDataEncoder.hash(otherDomain, VOUCHER_TYPES, signed.voucher)
    const onMainnet = verifyTypedData(otherDomain, VOUCHER_TYPES, signed.voucher, signed.signature)
    expect(digest).not.toBe(
      TypedDataEncoder.hash(voucherDomain('137', request.contract), VOUCHER_TYPES, signed.voucher),
    )
    expect(onMainnet.toLowerCase()).not.toBe(wallet.address.toLowerCase())
    // a second contract reuses no cached separator of the first
    const other = signer.sign({ ...request, contract: '0x2222222222222222222222222222222222222222' })
    const domain = voucherDomain('137', '0x2222222222222222222222222222222222222222')
    expect(verifyTypedData(domain, VOUCHER_TYPES, other.voucher, other.signature).toLowerCase()).toBe(
      signer.address,
    )
  })
})
