// A contract wallet (EIP-1271; Decentraland's chains call it EIP-1654) as the owner of a signed request,
// verified for real: the wallet deployed on anvil, its owner EOA signing the delegation to an ephemeral key,
// @dcl/crypto asking the wallet's `isValidSignature` over JSON-RPC. Real PostgreSQL for the replay store.
//
// Guards the provider verify.ts hands @dcl/crypto for a contract-wallet chain (`usesContractWallet && rpcUrl ?
// authProviders(rpcUrl) : null` → `null`, or the condition → `false`): provider → null at verify.ts, and
// every test here that expects the wallet accepted fails, @dcl/crypto having no node to ask.
import { type AuthChain, AuthLinkType } from '@dcl/crypto'
import { type Anvil, chainTestsSkipReason, deploy, startAnvil } from '@genesis/contracts'
import { signedHeaders } from '@genesis/wire/signing'
import { Type } from '@sinclair/typebox'
import { type BaseWallet, type JsonRpcProvider, keccak256, toUtf8Bytes, Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyChain } from '../src/auth/verify.js'
import {
  type App,
  createApp,
  ok,
  type SignedRequest,
  signedFetchPayload,
  verifySignedFetch,
} from '../src/index.js'
import { REPLAY_REFUSALS, respellLink, respellRequest, respellSignature } from '../src/testing/index.js'
import { useKitDatabase } from './set-up.js'

const skip = chainTestsSkipReason()
const MAX_AGE_S = 60

/** How the owner EOA signs the delegation message. */
type Sign = (message: string) => string

/** EIP-1271 proper: the owner signs keccak256 of the message, what @dcl/crypto asks the wallet first. */
const rawDigest =
  (eoa: BaseWallet): Sign =>
  (message) =>
    eoa.signingKey.sign(keccak256(toUtf8Bytes(message))).serialized

/** A personal signature, as a browser wallet makes: @dcl/crypto asks again with the EIP-191 hash. */
const personal =
  (eoa: BaseWallet): Sign =>
  (message) =>
    eoa.signMessageSync(message)

describe.skipIf(skip)('a signed request from a contract wallet (EIP-1654 on anvil)', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider
  const db = useKitDatabase()
  let app: App
  /** The wallet's owner EOA: signs, holds nothing, never sends a transaction. */
  const owner = Wallet.createRandom()
  /** The contract wallet's address, checksummed as a client would write it. */
  let wallet: string

  beforeAll(async () => {
    anvil = await startAnvil()
    provider = anvil.provider()
    const contract = await deploy('ContractWallet', anvil.devWallet(0, provider), owner.address)
    wallet = await contract.getAddress()
    app = await createApp({
      name: 'demo',
      version: '1.0.0',
      sql: db.sql,
      authMaxAgeS: MAX_AGE_S,
      authRpcUrl: anvil.url,
    })
    app.post(
      '/v1/things',
      { config: { auth: 'signed' }, schema: { body: Type.Object({ name: Type.String() }) } },
      async (request) => ok({ signer: request.signer }),
    )
  })

  afterAll(async () => {
    await app?.close()
    provider?.destroy()
    await anvil?.close()
  })

  /**
   * The headers of a POST to `path` by the wallet: SIGNER (the wallet) → ECDSA_EIP_1654_EPHEMERAL (the
   * login message, signed through the wallet by `sign`) → the request, signed by the ephemeral key.
   */
  function walletHeaders(sign: Sign, timestamp: number, path = '/v1/things', signer = wallet) {
    const ephemeral = Wallet.createRandom()
    const expiration = new Date(timestamp + 60 * 60_000)
    const delegation = `Decentraland Login\nEphemeral address: ${ephemeral.address}\nExpiration: ${expiration.toISOString()}`
    const authChain: AuthChain = [
      { type: AuthLinkType.SIGNER, payload: signer, signature: '' },
      { type: AuthLinkType.ECDSA_EIP_1654_EPHEMERAL, payload: delegation, signature: sign(delegation) },
    ]
    const ephemeralIdentity = {
      address: ephemeral.address,
      publicKey: ephemeral.signingKey.publicKey,
      privateKey: ephemeral.privateKey,
    }
    return signedHeaders(
      { address: signer.toLowerCase(), authIdentity: { ephemeralIdentity, expiration, authChain } },
      'POST',
      path,
      { timestamp },
    )
  }

  const request = (headers: Record<string, string>, path = '/v1/things'): SignedRequest => ({
    method: 'POST',
    path,
    headers,
  })

  /** verifyChain's refusal as { status, code, reason, message }; fails the test if it is accepted. */
  async function refusal(headers: Record<string, string>, now: number, rpcUrl: string | undefined) {
    const error = await verifyChain(request(headers), { maxAgeS: MAX_AGE_S, rpcUrl, now: () => now }).then(
      () => expect.unreachable('the request was accepted'),
      (e: unknown) => e as { statusCode: number; code: string; message: string; data: { reason: string } },
    )
    return { status: error.statusCode, code: error.code, reason: error.data.reason, message: error.message }
  }

  it('is accepted as the wallet, not its owner, whichever way the owner signs', async () => {
    for (const sign of [rawDigest(owner), personal(owner)]) {
      const now = Date.now()
      const headers = walletHeaders(sign, now)
      const { signer, ephemeralExpiresAt } = await verifyChain(request(headers), {
        maxAgeS: MAX_AGE_S,
        rpcUrl: anvil.url,
        now: () => now,
      })
      expect(signer).toEqual({
        address: wallet.toLowerCase(),
        metadata: {},
        signature: JSON.parse(headers['x-identity-auth-chain-2']!).signature,
        replayKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        timestamp: now,
      })
      expect(signer.address).not.toBe(owner.address.toLowerCase())
      // Only a personal chain's expiry is known to verify.ts (the cache of reads relies on it); a contract
      // wallet's answer is on-chain state, so there is none here.
      expect(ephemeralExpiresAt).toBeUndefined()
    }
  })

  it('is accepted with AUTH_RPC_URL a list of providers whose first is down', async () => {
    const now = Date.now()
    const { signer } = await verifyChain(request(walletHeaders(rawDigest(owner), now)), {
      maxAgeS: MAX_AGE_S,
      // a port nothing listens on, then the node
      rpcUrl: `http://127.0.0.1:9, ${anvil.url}`,
      now: () => now,
    })
    expect(signer.address).toBe(wallet.toLowerCase())
  })

  it('is accepted through the service, and once only whatever the spelling of its signatures', async () => {
    const headers = walletHeaders(rawDigest(owner), Date.now())
    const post = (h: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/v1/things', headers: h, payload: { name: 'x' } })
    const first = await post(headers)
    expect([first.statusCode, first.json()]).toEqual([
      200,
      { ok: true, data: { signer: wallet.toLowerCase() } },
    ])
    // The request's own signature and the wallet's delegation, in upper-case hex: both still verify (so the
    // refusal is the replay store's, not the signature check's) and are the same request.
    for (const respelled of [
      respellSignature(headers, 'upper case'),
      respellLink(headers, 1, 'upper case'),
    ]) {
      const again = await post(respelled)
      expect([again.statusCode, again.json().data?.reason]).toEqual([401, 'replayed'])
    }
  })

  it('is one request whatever the spelling of its delegation, owner, headers and URL', async () => {
    // Defect: the replay key hashed the delegation as sent, and @dcl/crypto drops every \r of it before
    // asking the wallet: the wallet's used request re-sent with \r\n line endings was accepted again.
    const headers = walletHeaders(rawDigest(owner), Date.now())
    const url = '/v1/things'
    const post = (sent: { url: string; headers: Record<string, string> }) =>
      app.inject({ method: 'POST', url: sent.url, headers: sent.headers, payload: { name: 'x' } })
    expect((await post({ url, headers })).statusCode).toBe(200)
    const answers: Record<string, [number, string | undefined]> = {}
    for (const spelling of Object.keys(REPLAY_REFUSALS)) {
      const answer = await post(respellRequest({ url, headers }, spelling))
      answers[spelling] = [answer.statusCode, answer.json().data?.reason]
    }
    expect(answers).toEqual({
      ...REPLAY_REFUSALS,
      // the wallet's contract decides which forms of its owner's signature it takes (this one: v 27/28,
      // low s), and eth-connect does not read a 0X address: no request at all
      'delegation signature v as 0/1': [401, 'invalid_signature'],
      'delegation signature high s': [401, 'invalid_signature'],
      'owner with 0X': [401, 'invalid_signature'],
    })
  })

  it('has one replay key for every spelling of its signatures', async () => {
    const now = Date.now()
    const headers = walletHeaders(rawDigest(owner), now)
    const keyOf = async (h: Record<string, string>) =>
      (await verifyChain(request(h), { maxAgeS: MAX_AGE_S, rpcUrl: anvil.url, now: () => now })).signer
        .replayKey
    const key = await keyOf(headers)
    expect(await keyOf(respellSignature(headers, 'upper case'))).toBe(key)
    expect(await keyOf(respellLink(headers, 1, 'upper case'))).toBe(key)
    // another request of the same wallet is another key
    expect(await keyOf(walletHeaders(rawDigest(owner), now))).not.toBe(key)
  })

  it('is refused when the delegation is signed by an EOA that does not own the wallet', async () => {
    const stranger = Wallet.createRandom()
    for (const sign of [rawDigest(stranger), personal(stranger)]) {
      const now = Date.now()
      expect(await refusal(walletHeaders(sign, now), now, anvil.url)).toEqual({
        status: 401,
        code: 'unauthorized',
        reason: 'invalid_signature',
        message: expect.stringMatching(
          /^Invalid signature: the contract wallet does not vouch for the ephemeral key \(EIP-1654\)$/,
        ),
      })
    }
    // and through the service, in the error envelope
    const answer = await app.inject({
      method: 'POST',
      url: '/v1/things',
      headers: walletHeaders(personal(stranger), Date.now()),
      payload: { name: 'x' },
    })
    expect(answer.statusCode).toBe(401)
    expect(answer.json()).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^Invalid signature: the contract wallet does not vouch for the ephemeral key \(EIP-1654\)$/,
      ),
      code: 'unauthorized',
      data: { reason: 'invalid_signature' },
    })
  })

  it('is refused when its first link is the owner EOA, which has no code to ask', async () => {
    const now = Date.now()
    const headers = walletHeaders(rawDigest(owner), now, '/v1/things', owner.address)
    expect(await refusal(headers, now, anvil.url)).toEqual({
      status: 401,
      code: 'unauthorized',
      reason: 'invalid_signature',
      message: expect.stringMatching(
        /^Invalid signature: the contract wallet does not vouch for the ephemeral key \(EIP-1654\)$/,
      ),
    })
  })

  it('is refused when the wallet is written without 0x, though the wallet vouches for it', async () => {
    // Guards verify.ts's owner check (`!/^0x[0-9a-f]{40}$/.test(address)` → `false`, its reason and message
    // → ""): eth-connect reads 40 bare digits as the wallet's address and @dcl/crypto accepts the chain, so
    // without the check the caller would be the text as written. Other spellings (spaces, a 0X, a prefix or
    // suffix) eth-connect refuses itself, so the regular expression's anchors are not observable here.
    const now = Date.now()
    const headers = walletHeaders(rawDigest(owner), now, '/v1/things', wallet.slice(2))
    expect(await refusal(headers, now, anvil.url)).toEqual({
      status: 401,
      code: 'unauthorized',
      reason: 'malformed',
      message: 'The auth chain does not start with a signer address',
    })
  })

  it('is refused without an RPC URL, however well signed', async () => {
    const now = Date.now()
    expect(await refusal(walletHeaders(rawDigest(owner), now), now, undefined)).toEqual({
      status: 401,
      code: 'unauthorized',
      reason: 'invalid_signature',
      message: 'Contract-wallet (EIP-1654) signatures cannot be verified: no RPC is configured',
    })
  })

  it('is refused for what it signs, not only for who signs it', async () => {
    // The wallet's delegation is genuine; the request is replayed to another path.
    const now = Date.now()
    const headers = walletHeaders(rawDigest(owner), now, '/v1/things')
    const elsewhere = await verifyChain(request(headers, '/v1/other'), {
      maxAgeS: MAX_AGE_S,
      rpcUrl: anvil.url,
      now: () => now,
    }).then(
      () => expect.unreachable('accepted on another path'),
      (e: { data: { reason: string } }) => e.data.reason,
    )
    expect(elsewhere).toBe('payload_mismatch')
    // verifySignedFetch, the entry point the kit uses, agrees with verifyChain on the genuine request
    const signer = await verifySignedFetch(request(headers), {
      maxAgeS: MAX_AGE_S,
      rpcUrl: anvil.url,
      now: () => now,
    })
    expect(signer.address).toBe(wallet.toLowerCase())
  })
})

describe('a chain of one SIGNER link', () => {
  it('is refused, though @dcl/crypto accepts it, for naming no address', async () => {
    // Guards verify.ts's owner check (→ `false`) without a node: @dcl/crypto takes a SIGNER link's payload
    // as the chain's authority, so a lone link whose payload is the request line "verifies"; only the check
    // that the owner is an address refuses it.
    const now = Date.now()
    const headers = {
      'x-identity-timestamp': String(now),
      'x-identity-metadata': '{}',
      'x-identity-auth-chain-0': JSON.stringify({
        type: 'SIGNER',
        payload: signedFetchPayload('POST', '/v1/things', now, '{}'),
        signature: '',
      }),
    }
    const error = await verifyChain(
      { method: 'POST', path: '/v1/things', headers },
      { maxAgeS: MAX_AGE_S, now: () => now },
    ).then(
      () => expect.unreachable('the request was accepted'),
      (e: unknown) => e as { statusCode: number; message: string; data: { reason: string } },
    )
    expect([error.statusCode, error.data.reason, error.message]).toEqual([
      401,
      'malformed',
      'The auth chain does not start with a signer address',
    ])
  })
})
