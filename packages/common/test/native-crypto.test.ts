import { Authenticator } from '@dcl/crypto'
import { hashMessage, keccak256, randomBytes, SigningKey, Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import {
  fastKeccak256,
  recoverPersonalSigner,
  signDigest,
  signedFetchPayload,
  verifySignedFetch,
} from '../src/index.js'
import { createIdentity, signedHeaders } from '../src/testing/index.js'

describe('native crypto helpers', () => {
  it('recover the same signer as ethers and refuse garbage', async () => {
    const wallet = Wallet.createRandom()
    const signature = await wallet.signMessage('hello')
    expect(recoverPersonalSigner('hello', signature)).toBe(wallet.address.toLowerCase())
    expect(recoverPersonalSigner('hell0', signature)).not.toBe(wallet.address.toLowerCase())
    expect(recoverPersonalSigner('hello', '0x1234')).toBeNull()
    expect(recoverPersonalSigner('hello', `${signature.slice(0, -2)}1f`)).toBeNull()
  })

  it('hash with Keccak-256 exactly as ethers does, whatever the length', () => {
    for (const length of [0, 1, 31, 32, 135, 136, 137, 356, 4096]) {
      const bytes = randomBytes(length)
      expect(fastKeccak256(bytes)).toBe(keccak256(bytes))
    }
    // a view into a larger buffer hashes only its own bytes
    const whole = randomBytes(64)
    expect(fastKeccak256(whole.subarray(8, 40))).toBe(keccak256(whole.subarray(8, 40)))
  })

  it('hash each input on its own: the shared sponge starts afresh and keeps no earlier result', () => {
    const first = randomBytes(200)
    const second = randomBytes(7)
    const hashes = [fastKeccak256(first), fastKeccak256(second), fastKeccak256(first)]
    expect(hashes).toEqual([keccak256(first), keccak256(second), keccak256(first)])
  })

  it('recover signers of messages in any script (the EIP-191 prefix counts bytes, not characters)', async () => {
    const wallet = Wallet.createRandom()
    for (const message of ['', 'ü', 'Genesis 🌍 city', 'x'.repeat(1000)]) {
      expect(recoverPersonalSigner(message, await wallet.signMessage(message))).toBe(
        wallet.address.toLowerCase(),
      )
    }
  })

  it('sign digests exactly as ethers does', () => {
    const wallet = Wallet.createRandom()
    const digest = hashMessage('voucher')
    expect(signDigest(digest, wallet.privateKey)).toBe(
      new SigningKey(wallet.privateKey).sign(digest).serialized,
    )
  })
})

describe('the fast path of signed fetch', () => {
  const request = (headers: Record<string, string>) => ({ method: 'GET', path: '/v1/x', headers })
  const options = { maxAgeS: 300 }

  it('agrees with @dcl/crypto on valid and tampered chains', async () => {
    const alice = await createIdentity()
    const mallory = await createIdentity()
    const good = signedHeaders(alice, 'GET', '/v1/x')
    const swapLink = (index: number, from: Record<string, string>) => ({
      ...good,
      [`x-identity-auth-chain-${index}`]: from[`x-identity-auth-chain-${index}`]!,
    })
    const malloryHeaders = signedHeaders(mallory, 'GET', '/v1/x', {
      timestamp: Number(good['x-identity-timestamp']),
    })
    const cases = [
      good,
      swapLink(0, malloryHeaders),
      swapLink(1, malloryHeaders),
      swapLink(2, malloryHeaders),
    ]
    for (const headers of cases) {
      const chain = [0, 1, 2].map((i) => JSON.parse(headers[`x-identity-auth-chain-${i}`]!))
      const payload = signedFetchPayload('GET', '/v1/x', headers['x-identity-timestamp']!, '{}')
      const library = await Authenticator.validateSignature(payload, chain, null, Date.now())
      const ours = await verifySignedFetch(request(headers), options).then(
        () => true,
        () => false,
      )
      expect(ours).toBe(library.ok)
    }
  })

  it('refuses a chain whose ephemeral key has expired', async () => {
    const expired = await createIdentity(undefined, -1)
    const headers = signedHeaders(expired, 'GET', '/v1/x')
    await expect(verifySignedFetch(request(headers), options)).rejects.toThrow(/expired/)
  })

  it('remembers a verified request, but checks its age and its ephemeral key again on every re-send', async () => {
    const alice = await createIdentity(undefined, 10)
    const sent = Date.now()
    const headers = signedHeaders(alice, 'GET', '/v1/x', { timestamp: sent })
    const at = (now: number) => verifySignedFetch(request(headers), { maxAgeS: 300, now: () => now })
    expect((await at(sent)).address).toBe(alice.address)
    expect((await at(sent + 1000)).address).toBe(alice.address)
    await expect(at(sent + 301_000)).rejects.toThrow(/expired: .* in the past/)
    // Within the age window, but the ephemeral key (10 minutes) has expired: refused all the same.
    await expect(
      verifySignedFetch(request(headers), { maxAgeS: 3600, now: () => sent + 11 * 60_000 }),
    ).rejects.toThrow(/ephemeral key expired at \d{4}-/)
  })

  it('takes nothing from a remembered request for one whose headers differ in any way', async () => {
    const alice = await createIdentity()
    const headers = signedHeaders(alice, 'GET', '/v1/x')
    await verifySignedFetch(request(headers), options)
    const timestamp = String(Number(headers['x-identity-timestamp']) + 1)
    const variants = [
      { method: 'POST', path: '/v1/x', headers },
      { method: 'GET', path: '/v1/y', headers },
      { method: 'GET', path: '/v1/x', headers: { ...headers, 'x-identity-timestamp': timestamp } },
      { method: 'GET', path: '/v1/x', headers: { ...headers, 'x-identity-metadata': '{"a":1}' } },
      { method: 'GET', path: '/v1/x', headers: { ...headers, 'x-identity-metadata': '' } },
    ]
    for (const variant of variants) {
      await expect(verifySignedFetch(variant, options)).rejects.toThrow(/does not match|not valid JSON/)
    }
    // the same last link under another owner's delegation
    const mallory = signedHeaders(await createIdentity(), 'GET', '/v1/x')
    for (const link of ['x-identity-auth-chain-0', 'x-identity-auth-chain-1']) {
      await expect(
        verifySignedFetch(request({ ...headers, [link]: mallory[link]! }), options),
      ).rejects.toThrow(/Invalid signature/)
    }
    // and the remembered signer cannot be changed by whoever received it
    const signer = await verifySignedFetch(request(headers), options)
    expect(Object.isFrozen(signer) && Object.isFrozen(signer.metadata)).toBe(true)
  })
})
