import { randomBytes } from 'node:crypto'
import { requireRealPostgres } from '@genesis/common/testing'
import { secp256k1 } from '@noble/curves/secp256k1'
import { concat, getBytes, N, Signature, toBeHex } from 'ethers'
import { beforeAll, describe, expect, it } from 'vitest'
import { registryDomainOf } from '../src/context.js'
import { type Cheque, chequeDigest, recoverChequeSigner } from '../src/domain/cheque.js'
import { signCheque } from './chequebook.js'
import {
  call,
  createCollection,
  createItem,
  type Identity,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'

// A cheque pays for one publication: it is its EIP-712 digest (third party, qty, salt, registry domain),
// whatever the text of its signature. Every spelling the verifier accepts, and a second signature of the
// same cheque, must collide with the stored one.

const h = useHarness()
const [alice] = useIdentities(1)
const tpId = `urn:decentraland:sepolia:collections-thirdparty:cheques${randomBytes(4).toString('hex')}`
let collection: string
let used: Cheque

beforeAll(async () => {
  // without RPC_URL the first signer registers the third party (development)
  collection = await createCollection(h.app, alice, { urn: `${tpId}:drop` })
  used = await signCheque(h.config, alice, tpId, 1)
  const first = await publishNewItem(collection, used)
  expect(first.statusCode, first.body).toBe(204)
})

/** A fresh item of the collection sent to review with `cheque` (qty 1). */
async function publishNewItem(collectionId: string, cheque: Cheque) {
  const item = await createItem(h.app, alice, collectionId)
  return call(h.app, alice, 'POST', `/v1/collections/${collectionId}/publish`, { itemIds: [item], cheque })
}

const parts = (signature: string) => Signature.from(signature)

/** The same ECDSA signature written every way ethers' verifier reads it. */
function respellings(signature: string): Record<string, string> {
  const sig = parts(signature)
  const r = sig.r
  const s = sig.s
  return {
    'upper-case hex': `0x${signature.slice(2).toUpperCase()}`,
    'mixed-case 0X-less body': `0x${signature.slice(2, 40).toUpperCase()}${signature.slice(40)}`,
    'v as 0/1': concat([r, s, toBeHex(sig.yParity, 1)]),
    'v as 35/36 (chain-style)': concat([r, s, toBeHex(35 + sig.yParity, 1)]),
    'compact 64-byte EIP-2098': sig.compactSerialized,
    'compact, upper-case': `0x${sig.compactSerialized.slice(2).toUpperCase()}`,
  }
}

/** A second, different signature of the same cheque: ECDSA with a fresh random nonce (extra entropy). */
function signAgain(who: Identity, cheque: Cheque): string {
  const digest = getBytes(chequeDigest(registryDomainOf(h.config), tpId, cheque))
  const signed = secp256k1.sign(digest, getBytes(who.wallet.privateKey), {
    lowS: true,
    extraEntropy: randomBytes(32),
  })
  return Signature.from({
    r: toBeHex(signed.r, 32),
    s: toBeHex(signed.s, 32),
    yParity: signed.recovery as 0 | 1,
  }).serialized
}

describe('a used cheque, however its signature is written, pays no second publication', () => {
  it('every spelling the verifier accepts is recognised as the used cheque (409 cheque_used)', async () => {
    const domain = registryDomainOf(h.config)
    for (const [how, signature] of Object.entries(respellings(used.signature))) {
      expect(signature, how).not.toBe(used.signature)
      // the verifier does accept it: without the digest key it would pay again
      expect(recoverChequeSigner(domain, tpId, { ...used, signature }), how).toBe(alice.address)
      const res = await publishNewItem(collection, { ...used, signature })
      expect([res.statusCode, res.json().code], `${how}: ${res.body}`).toEqual([409, 'cheque_used'])
    }
  })

  it('the salt written in upper case is the same cheque', async () => {
    const salt = `0x${used.salt.slice(2).toUpperCase()}`
    const res = await publishNewItem(collection, {
      ...used,
      salt,
      signature: parts(used.signature).compactSerialized,
    })
    expect([res.statusCode, res.json().code], res.body).toEqual([409, 'cheque_used'])
  })

  it('the same cheque signed again with a fresh nonce is the same cheque', async () => {
    const signature = signAgain(alice, used)
    expect(signature).not.toBe(used.signature)
    expect(parts(signature).r).not.toBe(parts(used.signature).r)
    expect(recoverChequeSigner(registryDomainOf(h.config), tpId, { ...used, signature })).toBe(alice.address)
    const res = await publishNewItem(collection, { ...used, signature })
    expect([res.statusCode, res.json().code], res.body).toEqual([409, 'cheque_used'])
  })

  it('is refused on another collection of the same third party too', async () => {
    const other = await createCollection(h.app, alice, { urn: `${tpId}:other` })
    const res = await publishNewItem(other, { ...used, signature: signAgain(alice, used) })
    expect([res.statusCode, res.json().code], res.body).toEqual([409, 'cheque_used'])
  })

  it('a high-s twin is never a second payment: refused, or read as the same cheque', async () => {
    const sig = parts(used.signature)
    const highS = concat([sig.r, toBeHex(N - BigInt(sig.s), 32), toBeHex(sig.v === 27 ? 28 : 27, 1)])
    const res = await publishNewItem(collection, { ...used, signature: highS })
    expect(res.statusCode, res.body).not.toBe(204)
    expect(['invalid_cheque', 'cheque_used']).toContain(res.json().code)
  })

  it('stores the signature in the one form the registry checks, with the digest', async () => {
    const cheque = await signCheque(h.config, alice, tpId, 1)
    const compact = parts(cheque.signature).compactSerialized.toUpperCase().replace('0X', '0x')
    const res = await publishNewItem(collection, { ...cheque, signature: compact })
    expect(res.statusCode, res.body).toBe(204)
    const [row] = await h.db.sql<{ signature: string; digest: string }[]>`
      select signature, digest from slot_usage_cheques where salt = ${cheque.salt}`
    expect(row).toEqual({
      signature: cheque.signature,
      digest: chequeDigest(registryDomainOf(h.config), tpId, cheque),
    })
  })

  it('a new salt is a new cheque', async () => {
    const res = await publishNewItem(collection, await signCheque(h.config, alice, tpId, 1))
    expect(res.statusCode, res.body).toBe(204)
  })
})

describe('concurrent publications with two spellings of one cheque', () => {
  it('exactly one pays', async (context) => {
    requireRealPostgres(context, h.db)
    const cheque = await signCheque(h.config, alice, tpId, 1)
    const spellings = [
      cheque.signature,
      ...Object.values(respellings(cheque.signature)),
      signAgain(alice, cheque),
    ]
    const collections = await Promise.all(
      spellings.map((_, i) => createCollection(h.app, alice, { urn: `${tpId}:race${i}` })),
    )
    const items = await Promise.all(collections.map((c) => createItem(h.app, alice, c)))
    const answers = await Promise.all(
      spellings.map((signature, i) =>
        call(h.app, alice, 'POST', `/v1/collections/${collections[i]}/publish`, {
          itemIds: [items[i]],
          cheque: { ...cheque, signature },
        }),
      ),
    )
    const statuses = answers.map((a) => a.statusCode)
    expect(
      statuses.filter((s) => s === 204),
      JSON.stringify(statuses),
    ).toHaveLength(1)
    for (const a of answers.filter((a) => a.statusCode !== 204)) refusal(a, 409, 'cheque_used')
    const [stored] = await h.db.sql<{ n: number }[]>`
      select count(*)::int as n from slot_usage_cheques where lower(salt) = ${cheque.salt}`
    expect(stored!.n).toBe(1)
  })
})
