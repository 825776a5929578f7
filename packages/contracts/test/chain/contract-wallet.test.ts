import { hashMessage, type JsonRpcProvider, keccak256, toUtf8Bytes, Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Anvil, chainTestsSkipReason, deploy, startAnvil } from '../../src/index.js'

const skip = chainTestsSkipReason()

// EIP-1271's answers, as bytes4 hex: what callers compare against.
const MAGIC_VALUE = '0x1626ba7e'
const INVALID = '0xffffffff'

describe.skipIf(skip)('the contract wallet on anvil', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider
  const owner = Wallet.createRandom()
  let isValidSignature: (hash: string, signature: string) => Promise<string>

  beforeAll(async () => {
    anvil = await startAnvil()
    provider = anvil.provider()
    const wallet = await deploy('ContractWallet', anvil.devWallet(0, provider), owner.address)
    expect(await wallet.getFunction('owner')()).toBe(owner.address)
    const call = wallet.connect(provider).getFunction('isValidSignature')
    isValidSignature = async (hash, signature) => String(await call(hash, signature))
  })
  afterAll(async () => {
    provider?.destroy()
    await anvil?.close()
  })

  it('vouches for any hash its owner signed, and for nothing else', async () => {
    const raw = keccak256(toUtf8Bytes('Decentraland Login'))
    const personal = hashMessage('Decentraland Login')
    const signed = owner.signingKey.sign(raw).serialized
    expect(await isValidSignature(raw, signed)).toBe(MAGIC_VALUE)
    expect(await isValidSignature(personal, owner.signMessageSync('Decentraland Login'))).toBe(MAGIC_VALUE)
    // the owner's signature of another hash, another key's signature of this one
    expect(await isValidSignature(personal, signed)).toBe(INVALID)
    expect(await isValidSignature(raw, Wallet.createRandom().signingKey.sign(raw).serialized)).toBe(INVALID)
  })

  it('answers "invalid" to a signature that is none, rather than reverting', async () => {
    const raw = keccak256(toUtf8Bytes('x'))
    const signed = owner.signingKey.sign(raw).serialized
    for (const junk of ['0x', `${signed}00`, signed.slice(0, -2), `0x${'00'.repeat(65)}`]) {
      expect(await isValidSignature(raw, junk), junk).toBe(INVALID)
    }
  })
})
