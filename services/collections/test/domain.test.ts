import { generateTree } from '@dcl/content-hash-tree'
import { concat, getAddress, keccak256, TypedDataEncoder, toUtf8Bytes, Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { AnswerCache } from '../src/domain/answer-cache.js'
import {
  CONSUME_SLOTS_TYPES,
  chequeDigest,
  recoverChequeSigner,
  registryDomain,
} from '../src/domain/cheque.js'
import { collectionContractAddress, collectionSalt } from '../src/domain/contract-address.js'
import { contentHashesRoot } from '../src/domain/merkle.js'
import { parseCollectionUrn, standardCollectionUrn } from '../src/domain/urn.js'
import { contentHash } from './helpers.js'

describe('collection URNs', () => {
  it('parses a third-party URN into its third party and suffix', () => {
    const parsed = parseCollectionUrn(
      'urn:decentraland:sepolia:collections-thirdparty:cryptohats:summer-2024',
      'sepolia',
    )
    expect(parsed).toEqual({
      ok: true,
      urn: {
        kind: 'third_party',
        network: 'sepolia',
        thirdPartyId: 'urn:decentraland:sepolia:collections-thirdparty:cryptohats',
        suffix: 'summer-2024',
        urn: 'urn:decentraland:sepolia:collections-thirdparty:cryptohats:summer-2024',
      },
    })
  })

  it('parses a standard URN, lower-casing its address', () => {
    const parsed = parseCollectionUrn(
      `urn:decentraland:sepolia:collections-v2:0x${'AB'.repeat(20)}`,
      'sepolia',
    )
    expect(parsed).toEqual({
      ok: true,
      urn: { kind: 'standard', network: 'sepolia', contractAddress: `0x${'ab'.repeat(20)}` },
    })
  })

  it.each([
    ['another network', 'urn:decentraland:mainnet:collections-thirdparty:tp:suffix'],
    ['a missing suffix', 'urn:decentraland:sepolia:collections-thirdparty:tp'],
    ['an extra segment', 'urn:decentraland:sepolia:collections-thirdparty:tp:a:b'],
    ['another namespace', 'urn:ethereum:sepolia:collections-thirdparty:tp:a'],
    ['a short address', 'urn:decentraland:sepolia:collections-v2:0x1234'],
    ['spaces', 'urn:decentraland:sepolia:collections-thirdparty:t p:a'],
    ['nothing', ''],
  ])('refuses %s', (_what, urn) => {
    const parsed = parseCollectionUrn(urn, 'sepolia')
    expect(parsed.ok).toBe(false)
  })

  it('says why it refuses: the shapes it takes, or the network it works on', () => {
    // guards each reason's template → `` `` ``
    expect(parseCollectionUrn('urn:decentraland:sepolia:collections-v2:0x12', 'sepolia')).toEqual({
      ok: false,
      reason:
        '"urn:decentraland:sepolia:collections-v2:0x12" is not a collection URN (urn:decentraland:<network>:collections-v2:<address> or urn:decentraland:<network>:collections-thirdparty:<third-party>:<suffix>)',
    })
    expect(parseCollectionUrn('urn:decentraland:mainnet:collections-thirdparty:tp:a', 'sepolia')).toEqual({
      ok: false,
      reason: 'The URN is for network "mainnet", this service works on "sepolia"',
    })
  })

  it('builds the standard URN from the contract address', () => {
    expect(standardCollectionUrn('sepolia', `0x${'AB'.repeat(20)}`)).toBe(
      `urn:decentraland:sepolia:collections-v2:0x${'ab'.repeat(20)}`,
    )
  })
})

describe('standard collection address', () => {
  it('salts with keccak256 of the id text and derives the CREATE2 address', () => {
    const id = '2ab7d5d0-0c5c-4a57-9d3c-1f6b1b6f3a11'
    const salt = collectionSalt(id)
    expect(salt).toBe(keccak256(toUtf8Bytes(id)))
    expect(collectionSalt(id.toUpperCase())).toBe(salt)
    const config = loadConfig({})
    const address = collectionContractAddress(
      config.COLLECTION_FACTORY_ADDRESS,
      salt,
      config.COLLECTION_INIT_CODE_HASH,
    )
    // CREATE2 by hand: keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]
    const digest = keccak256(
      concat(['0xff', getAddress(config.COLLECTION_FACTORY_ADDRESS), salt, config.COLLECTION_INIT_CODE_HASH]),
    )
    expect(address).toBe(`0x${digest.slice(26)}`)
    expect(address).toMatch(/^0x[0-9a-f]{40}$/)
  })
})

describe('slot cheques (EIP-712 ConsumeSlots)', () => {
  const domain = registryDomain({
    name: 'Decentraland Third Party Registry',
    address: `0x${'12'.repeat(20)}`,
    chainId: 80002,
  })
  const thirdPartyId = 'urn:decentraland:sepolia:collections-thirdparty:cryptohats'
  const salt = `0x${'07'.repeat(32)}`

  it('puts the chain id in the domain salt as 32 bytes', () => {
    expect(domain.salt).toBe(`0x${'0'.repeat(59)}13882`)
    expect(domain.version).toBe('1')
  })

  it('recovers the manager that signed the cheque', async () => {
    const manager = Wallet.createRandom()
    const signature = await manager.signTypedData(domain, CONSUME_SLOTS_TYPES, { thirdPartyId, qty: 3, salt })
    expect(recoverChequeSigner(domain, thirdPartyId, { qty: 3, salt, signature })).toBe(
      manager.address.toLowerCase(),
    )
  })

  it('does not recover the signer when any signed field differs', async () => {
    const manager = Wallet.createRandom()
    const signature = await manager.signTypedData(domain, CONSUME_SLOTS_TYPES, { thirdPartyId, qty: 3, salt })
    const signer = manager.address.toLowerCase()
    expect(recoverChequeSigner(domain, thirdPartyId, { qty: 4, salt, signature })).not.toBe(signer)
    expect(recoverChequeSigner(domain, `${thirdPartyId}x`, { qty: 3, salt, signature })).not.toBe(signer)
    const otherDomain = registryDomain({
      name: 'Decentraland Third Party Registry',
      address: `0x${'12'.repeat(20)}`,
      chainId: 137,
    })
    expect(recoverChequeSigner(otherDomain, thirdPartyId, { qty: 3, salt, signature })).not.toBe(signer)
  })

  it('answers null for a signature that is not one', () => {
    expect(
      recoverChequeSigner(domain, thirdPartyId, { qty: 1, salt, signature: `0x${'00'.repeat(65)}` }),
    ).toBeNull()
  })

  it("computes the registry's message hash of the cheque", () => {
    const cheque = { qty: 2, salt, signature: '0x' }
    const expected = TypedDataEncoder.hash(domain, CONSUME_SLOTS_TYPES, { thirdPartyId, qty: 2, salt })
    expect(chequeDigest(domain, thirdPartyId, cheque)).toBe(expected)
  })
})

describe('content hashes Merkle root', () => {
  it('is the root of @dcl/content-hash-tree and leaves the input untouched', () => {
    const hashes = [contentHash(), contentHash(), contentHash()]
    const copy = [...hashes]
    expect(contentHashesRoot(hashes)).toBe(generateTree([...copy]).merkleRoot)
    expect(hashes).toEqual(copy)
    expect(contentHashesRoot(hashes)).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('refuses an empty list, saying so', () => {
    // guards the message → `""`
    expect(() => contentHashesRoot([])).toThrow(new Error('A Merkle root needs at least one content hash'))
  })
})

// Here rather than next to the kept answers' tests: a cache that cannot be built fails those files' setup,
// and Stryker's runner counts their skipped tests as passed.
describe('the kept answers cache', () => {
  it('holds at most 16 MB of answers, dropping the least recently used', () => {
    // guards the LRU's options → `{}` (no bound: lru-cache refuses to build it)
    const cache = new AnswerCache()
    const mb = (n: number) => Buffer.alloc(n * 1024 * 1024)
    cache.set(1, 'a', mb(6))
    cache.set(1, 'b', mb(6))
    expect(cache.get(1, 'a')).toBeDefined()
    cache.set(1, 'c', mb(6))
    expect(cache.get(1, 'b')).toBeUndefined()
    expect(cache.get(1, 'a')?.length).toBe(6 * 1024 * 1024)
    expect(cache.get(1, 'c')?.length).toBe(6 * 1024 * 1024)
  })
})
