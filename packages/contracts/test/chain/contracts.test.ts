import { randomBytes } from 'node:crypto'
import {
  type Contract,
  getCreate2Address,
  type JsonRpcProvider,
  keccak256,
  TypedDataEncoder,
  toBeHex,
  toUtf8Bytes,
  Wallet,
} from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Anvil,
  chainTestsSkipReason,
  collectionInitCodeHash,
  contractAt,
  type Deployment,
  deployAll,
  startAnvil,
} from '../../src/index.js'

const skip = chainTestsSkipReason()

const CLAIM_TYPES = {
  Claim: [
    { name: 'claimId', type: 'bytes32' },
    { name: 'beneficiary', type: 'address' },
    { name: 'itemIds', type: 'uint256[]' },
    { name: 'expiresAt', type: 'uint256' },
  ],
}
const CONSUME_SLOTS_TYPES = {
  ConsumeSlots: [
    { name: 'thirdPartyId', type: 'string' },
    { name: 'qty', type: 'uint256' },
    { name: 'salt', type: 'bytes32' },
  ],
}

describe.skipIf(skip)('our contracts on anvil', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider
  let d: Deployment
  let voucherKey: Wallet
  let committee: Wallet
  let user: Wallet
  let dispenser: Contract
  const nextTime = async () => BigInt((await provider.getBlock('latest'))!.timestamp) + 3600n

  beforeAll(async () => {
    anvil = await startAnvil()
    provider = anvil.provider()
    voucherKey = Wallet.createRandom() as unknown as Wallet
    committee = anvil.devWallet(1, provider)
    user = anvil.devWallet(2, provider)
    d = await deployAll(anvil.devWallet(0, provider), {
      voucherSigner: voucherKey.address,
      committee: committee.address,
    })
    dispenser = contractAt('RewardsDispenser', d.rewardsDispenser, user)
  })
  afterAll(async () => {
    provider?.destroy()
    await anvil?.close()
  })

  async function voucher(fields: { beneficiary?: string; itemIds?: bigint[]; expiresAt?: bigint } = {}) {
    const value = {
      claimId: `0x${randomBytes(32).toString('hex')}`,
      beneficiary: fields.beneficiary ?? user.address,
      itemIds: fields.itemIds ?? [BigInt(`0x${randomBytes(6).toString('hex')}`)],
      expiresAt: fields.expiresAt ?? (await nextTime()),
    }
    const domain = {
      name: 'RewardsDispenser',
      version: '1',
      chainId: anvil.chainId,
      verifyingContract: d.rewardsDispenser,
    }
    return { value, signature: await voucherKey.signTypedData(domain, CLAIM_TYPES, value) }
  }

  it('the dispenser mints a voucher once, to its beneficiary, before it expires, if our signer signed it', async () => {
    const { value, signature } = await voucher()
    await (await dispenser.getFunction('claim')(value, signature)).wait()
    const collection = contractAt('Collection', d.rewardsCollection, provider)
    expect(await collection.getFunction('ownerOf')(value.itemIds[0])).toBe(user.address)

    const refusal = (call: Promise<unknown>, error: string) => expect(call).rejects.toThrow(error)
    await refusal(dispenser.getFunction('claim').staticCall(value, signature), 'ClaimAlreadyUsed')
    const past = await voucher({ expiresAt: 1n })
    await refusal(dispenser.getFunction('claim').staticCall(past.value, past.signature), 'VoucherExpired')
    const other = await voucher({ beneficiary: committee.address })
    await refusal(dispenser.getFunction('claim').staticCall(other.value, other.signature), 'NotBeneficiary')
    const forged = await voucher()
    const forger = Wallet.createRandom()
    const forgedSig = await forger.signTypedData(
      {
        name: 'RewardsDispenser',
        version: '1',
        chainId: anvil.chainId,
        verifyingContract: d.rewardsDispenser,
      },
      CLAIM_TYPES,
      forged.value,
    )
    await refusal(dispenser.getFunction('claim').staticCall(forged.value, forgedSig), 'InvalidSigner')
  })

  it('two sends of one voucher in the same block: exactly one mints, the other reverts', async () => {
    const { value, signature } = await voucher()
    await provider.send('evm_setAutomine', [false])
    try {
      const claim = dispenser.getFunction('claim')
      const nonce = await user.getNonce()
      const first = await claim(value, signature, { nonce, gasLimit: 500_000n })
      const second = await claim(value, signature, { nonce: nonce + 1, gasLimit: 500_000n })
      await provider.send('evm_mine', [])
      const receipts = await Promise.all([first.hash, second.hash].map((h) => provider.waitForTransaction(h)))
      expect(receipts[0]!.blockNumber).toBe(receipts[1]!.blockNumber)
      expect(receipts.map((r) => r!.status)).toEqual([1, 0])
    } finally {
      await provider.send('evm_setAutomine', [true])
    }
  })

  it('the factory deploys at the CREATE2 address computed off chain from the salt and init code hash', async () => {
    const factory = contractAt('CollectionFactory', d.collectionFactory, user)
    const salt = keccak256(toUtf8Bytes(crypto.randomUUID()))
    const expected = getCreate2Address(d.collectionFactory, salt, collectionInitCodeHash())
    expect(await factory.getFunction('addressOf')(salt)).toBe(expected)
    expect(await provider.getCode(expected)).toBe('0x')
    await (await factory.getFunction('deployCollection')(salt)).wait()
    expect(await provider.getCode(expected)).not.toBe('0x')
    const collection = contractAt('Collection', expected, provider)
    expect(await collection.getFunction('owner')()).toBe(user.address)
    await expect(factory.getFunction('deployCollection').staticCall(salt)).rejects.toThrow()
  })

  it('the registry consumes a manager cheque over the salt-domain once, keyed by its EIP-712 digest', async () => {
    const registry = contractAt('ThirdPartyRegistry', d.thirdPartyRegistry, committee)
    const tpId = `urn:decentraland:amoy:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
    const manager = Wallet.createRandom()
    await (await registry.getFunction('setManager')(tpId, manager.address, true)).wait()
    const domain = {
      name: d.thirdPartyRegistryName,
      version: '1',
      verifyingContract: d.thirdPartyRegistry,
      salt: toBeHex(anvil.chainId, 32),
    }
    const cheque = { thirdPartyId: tpId, qty: 3, salt: `0x${randomBytes(32).toString('hex')}` }
    const signature = await manager.signTypedData(domain, CONSUME_SLOTS_TYPES, cheque)
    const digest = TypedDataEncoder.hash(domain, CONSUME_SLOTS_TYPES, cheque)
    expect(await registry.getFunction('chequeDigest')(tpId, cheque.qty, cheque.salt)).toBe(digest)

    const consume = registry.getFunction('consumeSlots')
    await expect(consume.staticCall(tpId, 4, cheque.salt, signature)).rejects.toThrow('NotManager')
    await expect(
      contractAt('ThirdPartyRegistry', d.thirdPartyRegistry, user)
        .getFunction('consumeSlots')
        .staticCall(tpId, cheque.qty, cheque.salt, signature),
    ).rejects.toThrow('NotCommittee')
    expect(await registry.getFunction('receipts')(tpId, digest)).toBe(0n)
    await (await consume(tpId, cheque.qty, cheque.salt, signature)).wait()
    expect(await registry.getFunction('receipts')(tpId, digest)).toBe(3n)
    await expect(consume.staticCall(tpId, cheque.qty, cheque.salt, signature)).rejects.toThrow(
      'ChequeAlreadyConsumed',
    )
  })

  it("answers who manages a third party with Decentraland's isThirdPartyManager view", async () => {
    const registry = contractAt('ThirdPartyRegistry', d.thirdPartyRegistry, committee)
    const tpId = `urn:decentraland:amoy:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
    const manager = Wallet.createRandom().address
    const view = registry.getFunction('isThirdPartyManager')
    expect(registry.interface.getFunction('isThirdPartyManager')?.format('sighash')).toBe(
      'isThirdPartyManager(string,address)',
    )
    expect(await view(tpId, manager)).toBe(false)
    await (await registry.getFunction('setManager')(tpId, manager, true)).wait()
    expect(await view(tpId, manager)).toBe(true)
    expect(await view(`${tpId}x`, manager)).toBe(false)
    await (await registry.getFunction('setManager')(tpId, manager, false)).wait()
    expect(await view(tpId, manager)).toBe(false)
  })
})
