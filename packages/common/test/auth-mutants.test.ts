// Tests written for the mutation runs of src/auth (TESTING.md, "What the money and auth paths must keep"):
// each names, in its comment, the change to the code it guards against. Real PostgreSQL for the replay
// store, real signatures throughout.
import { type AuthChain, Authenticator } from '@dcl/crypto'
import { Type } from '@sinclair/typebox'
import { hashMessage, SigningKey, Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type App,
  createApp,
  isMutating,
  ok,
  recordSignature,
  type SignedRequest,
  signatureUsed,
  signDigest,
  signedFetchPayload,
  signedPath,
  usedSignature,
  verifySignedFetch,
} from '../src/index.js'
import { createIdentity, type Identity, signedHeaders } from '../src/testing/index.js'
import { useKitDatabase } from './set-up.js'

const MAX_AGE_S = 60
const db = useKitDatabase()
let app: App
let alice: Identity

beforeAll(async () => {
  app = await createApp({ name: 'demo', version: '1.0.0', sql: db.sql, authMaxAgeS: MAX_AGE_S })
  await app.register(
    async (scope) => {
      scope.post(
        '/things',
        { config: { auth: 'signed' }, schema: { body: Type.Object({ name: Type.String() }) } },
        async (request) => ok({ signer: request.signer, metadata: request.signerMetadata }),
      )
      scope.get('/things', { config: { auth: 'signed' } }, async (request) => ok({ signer: request.signer }))
    },
    { prefix: '/v1' },
  )
  alice = await createIdentity()
})

afterAll(async () => {
  await app?.close()
})

const post = (headers: Record<string, string>) =>
  app.inject({ method: 'POST', url: '/v1/things', headers, payload: { name: 'x' } })

/** The status, reason and message of an answer, for one comparison. */
async function refusal(answer: Promise<{ statusCode: number; json: () => unknown }>) {
  const response = await answer
  const body = response.json() as { data?: { reason?: string }; error?: string }
  return { status: response.statusCode, reason: body.data?.reason, error: body.error }
}

/** verifySignedFetch's refusal of a request, as { reason, message }; fails the test if it is accepted. */
async function refused(request: SignedRequest, now: number, maxAgeS = MAX_AGE_S) {
  const error = await verifySignedFetch(request, { maxAgeS, now: () => now }).then(
    () => expect.unreachable(`accepted: ${JSON.stringify(request.headers)}`),
    (e: unknown) => e as { statusCode: number; message: string; data: { reason: string } },
  )
  expect(error.statusCode).toBe(401)
  return { reason: error.data.reason, message: error.message }
}

/** Headers carrying exactly these chain links, timestamp and metadata. */
function headersOf(chain: AuthChain, timestamp: string, metadata = '{}'): Record<string, string> {
  const headers: Record<string, string> = {
    'x-identity-timestamp': timestamp,
    'x-identity-metadata': metadata,
  }
  chain.forEach((link, i) => {
    headers[`x-identity-auth-chain-${i}`] = JSON.stringify(link)
  })
  return headers
}

const linkOf = (headers: Record<string, string>, i: number) =>
  JSON.parse(headers[`x-identity-auth-chain-${i}`]!) as { type: string; payload: string; signature: string }

const expirationOf = (identity: Identity) => identity.authIdentity.expiration.getTime()

describe('what the request signs (headers.ts)', () => {
  it('is method:path:timestamp:metadata, lower-cased, as ADR-44 writes it', async () => {
    // Guards signedFetchPayload: `.join(':')` → `.join('')`, `.toLowerCase()` → `.toUpperCase()` or
    // dropped, the list emptied. The signing helpers share the function, so only a payload written out by
    // hand (as a Decentraland client builds it) notices.
    expect(signedFetchPayload('POST', '/v1/Things', 1700000000000, '{"Name":"A"}')).toBe(
      'post:/v1/things:1700000000000:{"name":"a"}',
    )
    const timestamp = String(Date.now())
    const chain = Authenticator.signPayload(alice.authIdentity, `post:/v1/things:${timestamp}:{"a":1}`)
    const answer = await post(headersOf(chain, timestamp, '{"A":1}'))
    expect([answer.statusCode, answer.json().data.metadata]).toEqual([200, { A: 1 }])
  })

  it('takes the path of any request target', () => {
    // Guards signedPath: the `/` fast path (`!== 47` → `=== 47`), `authority !== null` → `true` (a
    // target that is no URL crashes), the scheme and authority regular expression (anchor, classes,
    // quantifiers) and the `^\/` of the slash after the authority.
    const cases: [string, string][] = [
      ['/v1/things', '/v1/things'],
      ['/v1/things?x=http://h/p', '/v1/things'],
      ['http://host:8080/v1/things?x=1', '/v1/things'],
      ['HTTPS://HOST/v1/Things', '/v1/Things'],
      ['svn+ssh.x-1://h/p', '/p'],
      ['http://host', '/'],
      ['http://host/', '/'],
      ['http://host?q=/x', '/'],
      ['http://h#a/b', '/#a/b'],
      ['*', '*'],
      ['1http://h/p', '1http://h/p'],
      ['a b://h/p', 'a b://h/p'],
      ['http:/h/p', 'http:/h/p'],
    ]
    expect(cases.map(([target]) => [target, signedPath(target)])).toEqual(cases)
  })

  it('reads the first of a repeated header', async () => {
    // Guards header(): `Array.isArray(value) ? value[0] : value` with the condition `false` (the list is
    // read as one text) or `true` (a single value read as its first character).
    const timestamp = Date.now()
    const good = signedHeaders(alice, 'GET', '/v1/x', { timestamp })
    const repeated = Object.fromEntries(Object.entries(good).map(([name, value]) => [name, [value, 'junk']]))
    const signer = await verifySignedFetch(
      { method: 'GET', path: '/v1/x', headers: repeated },
      { maxAgeS: MAX_AGE_S, now: () => timestamp },
    )
    expect(signer.address).toBe(alice.address)
  })

  it('knows which methods change something, in any case', () => {
    // Guards isMutating's `method.toUpperCase()` (→ `toLowerCase()`, or dropped).
    expect(['post', 'Put', 'PATCH', 'delete', 'GET', 'head', 'OPTIONS'].map(isMutating)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ])
  })
})

describe('the auth chain headers (headers.ts)', () => {
  const timestamp = Date.now()
  const at = (headers: Record<string, string>) =>
    refused({ method: 'POST', path: '/v1/x', headers }, timestamp)
  const good = () => signedHeaders(alice, 'POST', '/v1/x', { timestamp })

  it('refuses more than ten links, and counts ten as allowed', async () => {
    // Guards `i >= MAX_CHAIN_LINKS` (→ `>`, `<`, `true`, `false`) and its message.
    const links = (n: number) => {
      const headers = good()
      for (let i = 3; i < n; i++) headers[`x-identity-auth-chain-${i}`] = headers['x-identity-auth-chain-2']!
      return headers
    }
    expect(await at(links(11))).toEqual({
      reason: 'malformed',
      message: 'The auth chain has more than 10 links',
    })
    // ten links are read, and then refused for what they say
    expect((await at(links(10))).reason).toBe('invalid_signature')
  })

  it('refuses links that are not objects of three strings', async () => {
    // Guards each test of parseChain's condition (→ `false`, and `||` → `&&`): `null` would crash on
    // `.type`; a link without a signature would pass as a SIGNER link; a numeric payload reached
    // @dcl/crypto's parser. The message names the header.
    const first = linkOf(good(), 0)
    const cases = ['null', '7', JSON.stringify({ type: first.type, payload: first.payload })]
    const second = linkOf(good(), 1)
    for (const link of [
      ...cases.map((text) => ({ 'x-identity-auth-chain-0': text })),
      { 'x-identity-auth-chain-1': JSON.stringify({ ...second, payload: 5 }) },
      { 'x-identity-auth-chain-1': JSON.stringify({ ...second, type: null }) },
    ]) {
      const [name] = Object.keys(link)
      expect(await at({ ...good(), ...link }), JSON.stringify(link)).toEqual({
        reason: 'malformed',
        message: `Header ${name} must be a JSON object with string type, payload and signature`,
      })
    }
    expect(await at({ ...good(), 'x-identity-auth-chain-1': '{' })).toEqual({
      reason: 'malformed',
      message: 'Header x-identity-auth-chain-1 is not valid JSON',
    })
  })

  it('refuses a request with a timestamp but no chain as missing its first link', async () => {
    // Guards `chain.length === 0` (→ `false`: the empty chain crashed on its last link) and its message;
    // without a timestamp either, the timestamp's own refusal came first and hid it.
    expect(await at({ 'x-identity-timestamp': String(timestamp) })).toEqual({
      reason: 'missing',
      message: 'Missing signed-fetch headers: x-identity-auth-chain-0 is required',
    })
  })
})

describe('the timestamp (headers.ts)', () => {
  const now = Date.now()
  const at = (timestamp: string, maxAgeS = MAX_AGE_S) =>
    refused(
      {
        method: 'POST',
        path: '/v1/x',
        headers: {
          ...signedHeaders(alice, 'POST', '/v1/x', { timestamp: now }),
          'x-identity-timestamp': timestamp,
        },
      },
      now,
      maxAgeS,
    )

  it('is decimal digits, one to sixteen, no leading zero', async () => {
    // Guards the format's regular expression: each anchor dropped (`x1`, `1x`), `\d` and `[1-9]`
    // negated, `{0,15}` → `{1,15}` (`7`), `{0,14}` (sixteen digits), `{0,16}` (seventeen), and the `0`
    // alternative. Well-formed ones get past the format and are refused as too old or too new.
    for (const malformed of ['x1', '1x', '', '00', '01', '12345678901234567', '-1', '1.5']) {
      expect((await at(malformed)).reason, malformed).toBe('malformed')
    }
    for (const wellFormed of ['0', '7', '1234567890123456']) {
      expect((await at(wellFormed)).reason, wellFormed).toBe('expired')
    }
  })

  it('shows at most forty characters of a malformed one', async () => {
    // Guards cut(): `> 40` → `>= 40` or `true` (a 40-character text gets an ellipsis), `false`, and
    // `slice(0, 40)` dropped.
    const expected = (shown: string) =>
      `Header x-identity-timestamp must be milliseconds since epoch in decimal digits without leading zeros, got "${shown}"`
    const forty = 'a'.repeat(40)
    expect((await at(forty)).message).toBe(expected(forty))
    expect((await at(`${forty}b`)).message).toBe(expected(`${forty}…`))
  })

  it('is refused one millisecond past the age window either way, not at its edge', async () => {
    // Guards `Math.abs(skew) > maxAgeS * 1000` (→ `>=`, `<`, `/ 1000`) and the refusal's wording: whole
    // seconds (`/ 1000` → `* 1000`), past or future (`skew > 0` → `<`), the limit.
    const edge = MAX_AGE_S * 1000
    for (const timestamp of [now - edge, now + edge]) {
      const headers = signedHeaders(alice, 'GET', '/v1/x', { timestamp })
      const signer = await verifySignedFetch(
        { method: 'GET', path: '/v1/x', headers },
        { maxAgeS: MAX_AGE_S, now: () => now },
      )
      expect(signer.timestamp).toBe(timestamp)
    }
    const past = signedHeaders(alice, 'GET', '/v1/x', { timestamp: now - edge - 1 })
    expect(await refused({ method: 'GET', path: '/v1/x', headers: past }, now)).toEqual({
      reason: 'expired',
      message: 'Signature expired: x-identity-timestamp is 60s in the past, the limit is 60s',
    })
    const future = signedHeaders(alice, 'GET', '/v1/x', { timestamp: now + 125_400 })
    expect(await refused({ method: 'GET', path: '/v1/x', headers: future }, now)).toEqual({
      reason: 'expired',
      message: 'Signature expired: x-identity-timestamp is 125s in the future, the limit is 60s',
    })
  })
})

describe('the metadata (headers.ts)', () => {
  it('accepts any JSON object, literals and escapes included', async () => {
    // Guards the scene check's lower-casing of the text (→ `toUpperCase()`: `true`, `null` and `\n`
    // stop being JSON and every such request was refused as a scene's).
    const metadata = { ok: true, none: null, text: 'two\nlines' }
    const headers = signedHeaders(alice, 'POST', '/v1/things', { metadata })
    const answer = await post(headers)
    expect([answer.statusCode, answer.json().data.metadata]).toEqual([200, metadata])
  })

  it('refuses JSON that is not an object', async () => {
    // Guards parseMetadata's `typeof value !== 'object'` and `value === null` (→ `false`: `5` and `null`
    // were accepted as metadata, and the route got a number or null for an object).
    const timestamp = Date.now()
    for (const text of ['5', 'null', '"x"', '[{}]']) {
      const chain = Authenticator.signPayload(
        alice.authIdentity,
        signedFetchPayload('POST', '/v1/things', timestamp, text),
      )
      expect(await refusal(post(headersOf(chain, String(timestamp), text))), text).toEqual({
        status: 401,
        reason: 'malformed',
        error: 'Header x-identity-metadata must be a JSON object',
      })
    }
  })

  it('reads a missing header as {}', async () => {
    // Guards parseMetadata's `?? '{}'` (→ `""`: a request sent without the header, as a client without
    // metadata sends it, was refused as malformed JSON).
    const { 'x-identity-metadata': _, ...bare } = signedHeaders(alice, 'POST', '/v1/things')
    const answer = await post(bare)
    expect([answer.statusCode, answer.json().data.metadata]).toEqual([200, {}])
  })
})

describe('the chain (verify.ts, delegation-cache.ts)', () => {
  const now = Date.now()
  const at = (headers: Record<string, string>, method = 'POST') =>
    refused({ method, path: '/v1/x', headers }, now)
  const accepted = (headers: Record<string, string>, method = 'POST', when = now) =>
    verifySignedFetch({ method, path: '/v1/x', headers }, { maxAgeS: MAX_AGE_S, now: () => when })

  it('returns the signer as sent: owner, metadata, last signature, timestamp and a replay key', async () => {
    // Guards the VerifiedSigner's fields, among them `last.signature ?? ''` (→ `&&`: an empty signature).
    const headers = signedHeaders(alice, 'POST', '/v1/x', { timestamp: now, metadata: { a: [1] } })
    const signer = await accepted(headers)
    expect(signer).toEqual({
      address: alice.address,
      metadata: { a: [1] },
      signature: linkOf(headers, 2).signature,
      replayKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      timestamp: now,
    })
  })

  it('counts the owner written in another case as the same request', async () => {
    // Guards replayKey's `chain.slice(1)` (→ `chain`: the owner's link as sent entered the key, and the
    // same request with the owner's address re-cased was a new one). The owner is in the key lower-case.
    const headers = signedHeaders(alice, 'POST', '/v1/things')
    expect((await post(headers)).statusCode).toBe(200)
    const owner = linkOf(headers, 0)
    for (const payload of [owner.payload.toLowerCase(), `0x${owner.payload.slice(2).toUpperCase()}`]) {
      const recased = { ...headers, 'x-identity-auth-chain-0': JSON.stringify({ ...owner, payload }) }
      expect(await refusal(post(recased)), payload).toMatchObject({ status: 401, reason: 'replayed' })
    }
  })

  it('verifies every link of a longer chain that starts like a personal one', async () => {
    // Guards isPersonalChain's `chain.length === 3` (→ `true`: only the first three links were checked,
    // and a fourth naming another request, unsigned, was taken for the request's signature).
    const other = signedHeaders(alice, 'POST', '/v1/other', { timestamp: now })
    const chain = [0, 1, 2].map((i) => linkOf(other, i)) as AuthChain
    chain.push({
      type: 'ECDSA_SIGNED_ENTITY',
      payload: signedFetchPayload('POST', '/v1/x', now, '{}'),
      signature: chain[2]!.signature,
    } as AuthChain[number])
    expect((await at(headersOf(chain, String(now)))).reason).toBe('invalid_signature')
  })

  it('refuses a chain that does not start with its signer, even with a known delegation', async () => {
    // Guards isPersonalChain's `chain[0].type === 'SIGNER'` (→ `true`: the delegation cache, keyed on the
    // payloads, vouched for a chain @dcl/crypto calls malformed).
    const headers = signedHeaders(alice, 'POST', '/v1/x', { timestamp: now })
    await accepted(headers)
    const owner = linkOf(headers, 0)
    const renamed = {
      ...headers,
      'x-identity-auth-chain-0': JSON.stringify({ ...owner, type: 'ECDSA_EPHEMERAL' }),
    }
    expect(await at(renamed)).toEqual({
      reason: 'invalid_signature',
      message:
        'Invalid signature: the auth chain is malformed: a SIGNER link first, then its delegations, the signed request last',
    })
  })

  it('refuses a contract-wallet last link without an RPC, even with a known delegation', async () => {
    // Guards isPersonalChain's `chain[2].type === 'ECDSA_SIGNED_ENTITY'` (→ `true`: an EIP-1654 link was
    // checked as a personal signature).
    const headers = signedHeaders(alice, 'POST', '/v1/x', { timestamp: now })
    await accepted(headers)
    const last = linkOf(headers, 2)
    const contract = {
      ...headers,
      'x-identity-auth-chain-2': JSON.stringify({ ...last, type: 'ECDSA_EIP_1654_SIGNED_ENTITY' }),
    }
    expect(await at(contract)).toEqual({
      reason: 'invalid_signature',
      message: 'Contract-wallet (EIP-1654) signatures cannot be verified: no RPC is configured',
    })
  })

  it('names why a chain does not verify', async () => {
    // Guards the refusals' messages: the request not signed by the ephemeral key; @dcl/crypto's own
    // message kept (`result.message ?? …` → `&&` in delegation-cache.ts and verify.ts); a delegation that
    // is not a login message (its catch emptied: a crash).
    const headers = signedHeaders(alice, 'POST', '/v1/x', { timestamp: now })
    const last = linkOf(headers, 2)
    const forged = Wallet.createRandom().signMessageSync(last.payload)
    expect(
      await at({ ...headers, 'x-identity-auth-chain-2': JSON.stringify({ ...last, signature: forged }) }),
    ).toEqual({
      reason: 'invalid_signature',
      message: 'Invalid signature: the request is not signed by the ephemeral key',
    })

    const owner = linkOf(headers, 0)
    const stranger = Wallet.createRandom().address
    const claimed = { ...headers, 'x-identity-auth-chain-0': JSON.stringify({ ...owner, payload: stranger }) }
    expect((await at(claimed)).message).toMatch(
      /^Invalid signature: the ephemeral key is not signed by the owner$/,
    )

    const wallet = Wallet.createRandom()
    const payload = signedFetchPayload('POST', '/v1/x', now, '{}')
    const direct = headersOf(
      [
        { type: 'SIGNER', payload: wallet.address, signature: '' },
        { type: 'ECDSA_SIGNED_ENTITY', payload, signature: Wallet.createRandom().signMessageSync(payload) },
      ] as AuthChain,
      String(now),
    )
    expect((await at(direct)).message).toMatch(
      /^Invalid signature: the request is not signed by the key the chain delegates to$/,
    )

    const notLogin = headersOf(
      [
        { type: 'SIGNER', payload: wallet.address, signature: '' },
        { type: 'ECDSA_EPHEMERAL', payload: 'hello', signature: wallet.signMessageSync('hello') },
        { type: 'ECDSA_SIGNED_ENTITY', payload, signature: wallet.signMessageSync(payload) },
      ] as AuthChain,
      String(now),
    )
    expect(await at(notLogin)).toEqual({
      reason: 'invalid_signature',
      message: 'Invalid signature: the ephemeral link is not a Decentraland login message',
    })
  })

  it('refuses a known delegation at the very millisecond its key expires', async () => {
    // Guards `delegation.expiresAt <= now` in verifyPersonalChain (→ `<`): the delegation is cached by
    // the first request, so only that comparison decides the second.
    const dave = await createIdentity()
    const expires = expirationOf(dave)
    const before = signedHeaders(dave, 'POST', '/v1/x', { timestamp: expires - 30_000 })
    expect((await accepted(before, 'POST', expires - 30_000)).address).toBe(dave.address)
    const onTime = signedHeaders(dave, 'POST', '/v1/x', { timestamp: expires - 1 })
    expect((await accepted(onTime, 'POST', expires - 1)).address).toBe(dave.address)
    const atExpiry = signedHeaders(dave, 'POST', '/v1/x', { timestamp: expires })
    expect(await refused({ method: 'POST', path: '/v1/x', headers: atExpiry }, expires)).toEqual({
      reason: 'invalid_signature',
      message: expect.stringMatching(
        /^Invalid signature: the ephemeral key expired at \d{4}-\d\d-\d\dT[\d:.]+Z: sign in again for a new one$/,
      ),
    })
  })
})

describe('the read cache (signed-fetch.ts)', () => {
  const read = (headers: Record<string, string>, now: number) =>
    verifySignedFetch({ method: 'GET', path: '/v1/x', headers }, { maxAgeS: MAX_AGE_S, now: () => now })

  it("answers a re-sent read from the cache, on the caller's clock", async () => {
    // Guards `if (remembered)` (→ `false`: every read verified afresh, a new signer each time) and the
    // cached path's `options.now ?? Date.now` (→ `&&`: the wall clock, ten minutes on, refused it).
    const sent = Date.now() - 10 * 60_000
    const headers = signedHeaders(await createIdentity(), 'GET', '/v1/x', { timestamp: sent })
    const first = await read(headers, sent)
    expect(await read(headers, sent + 1000)).toBe(first)
  })

  it('refuses a remembered read at the very millisecond its key expires', async () => {
    // Guards `remembered.ephemeralExpiresAt <= now` (→ `<`) on the cached path.
    const carol = await createIdentity()
    const expires = expirationOf(carol)
    const headers = signedHeaders(carol, 'GET', '/v1/x', { timestamp: expires - 30_000 })
    const first = await read(headers, expires - 30_000)
    expect(await read(headers, expires - 1)).toBe(first)
    await expect(read(headers, expires)).rejects.toMatchObject({
      data: { reason: 'invalid_signature' },
      message: expect.stringMatching(
        /^Invalid signature: the ephemeral key expired at \d{4}-\d\d-\d\dT[\d:.]+Z: sign in again for a new one$/,
      ),
    })
  })

  it('does not remember a three-link chain without an ephemeral key', async () => {
    // Guards `ephemeralExpiresAt !== undefined` (→ `true`): a chain whose validity is not a clock
    // (here the owner signs the next key's address outright; a contract wallet's is on-chain state) is
    // verified afresh on every request. Also `chain[1].type === 'ECDSA_EPHEMERAL'` (→ `true`): this chain
    // is no personal one.
    const owner = Wallet.createRandom()
    const next = Wallet.createRandom()
    const sent = Date.now()
    const payload = signedFetchPayload('GET', '/v1/x', sent, '{}')
    const headers = headersOf(
      [
        { type: 'SIGNER', payload: owner.address, signature: '' },
        {
          type: 'ECDSA_SIGNED_ENTITY',
          payload: next.address,
          signature: owner.signMessageSync(next.address),
        },
        { type: 'ECDSA_SIGNED_ENTITY', payload, signature: next.signMessageSync(payload) },
      ] as AuthChain,
      String(sent),
    )
    const first = await read(headers, sent)
    const second = await read(headers, sent)
    expect([first.address, second.address]).toEqual([
      owner.address.toLowerCase(),
      owner.address.toLowerCase(),
    ])
    expect(second).not.toBe(first)
    expect(Object.isFrozen(second)).toBe(false)
  })
})

describe('the caches hold many logins (delegation-cache.ts, read-cache.ts)', () => {
  it("keeps a delegation verified before another login's", async () => {
    // Guards the delegation cache's bound `delegations.size >= MAX_DELEGATIONS` (→ `true` or `<`: every
    // new login evicted the one before). Only a cached delegation is refused at its expiry by our own
    // check; one verified afresh is refused by @dcl/crypto, in its words.
    const [erin, frank] = [await createIdentity(), await createIdentity()]
    const start = Date.now()
    const signed = (who: Identity, timestamp: number) => signedHeaders(who, 'POST', '/v1/x', { timestamp })
    for (const who of [erin, frank]) {
      await verifySignedFetch(
        { method: 'POST', path: '/v1/x', headers: signed(who, start) },
        { maxAgeS: MAX_AGE_S, now: () => start },
      )
    }
    const expired = expirationOf(erin)
    expect(await refused({ method: 'POST', path: '/v1/x', headers: signed(erin, expired) }, expired)).toEqual(
      {
        reason: 'invalid_signature',
        message: expect.stringMatching(
          /^Invalid signature: the ephemeral key expired at \d{4}-\d\d-\d\dT[\d:.]+Z: sign in again for a new one$/,
        ),
      },
    )
  })

  it('keeps a read remembered before another one', async () => {
    // Guards the read cache's bound `verifiedReads.size >= MAX_VERIFIED_READS` (→ `true` or `<`: every
    // new read evicted the one before).
    const now = Date.now()
    const read = (headers: Record<string, string>) =>
      verifySignedFetch({ method: 'GET', path: '/v1/x', headers }, { maxAgeS: MAX_AGE_S, now: () => now })
    const first = signedHeaders(alice, 'GET', '/v1/x', { timestamp: now })
    const second = signedHeaders(alice, 'GET', '/v1/x', { timestamp: now - 1 })
    const remembered = await read(first)
    await read(second)
    expect(await read(first)).toBe(remembered)
  })
})

describe('what the read cache compares (read-cache.ts)', () => {
  const now = Date.now()
  const verify = (request: SignedRequest) =>
    verifySignedFetch(request, { maxAgeS: MAX_AGE_S, now: () => now })

  it('takes nothing from a remembered read for another method or an added link', async () => {
    // Guards sameRead's `a.method === b.method` (→ `true`: a HEAD with a GET's headers was answered from
    // the cache; any method but a mutating one reaches it) and sentRead's refusal of a fourth link
    // (→ `false`: the first three links of a remembered read vouched for a chain with a fourth, unchecked).
    const headers = signedHeaders(alice, 'GET', '/v1/x', { timestamp: now })
    await verify({ method: 'GET', path: '/v1/x', headers })
    expect(await refused({ method: 'HEAD', path: '/v1/x', headers }, now)).toMatchObject({
      reason: 'payload_mismatch',
    })
    const longer = { ...headers, 'x-identity-auth-chain-3': headers['x-identity-auth-chain-2']! }
    expect(await refused({ method: 'GET', path: '/v1/x', headers: longer }, now)).toMatchObject({
      reason: 'invalid_signature',
    })
  })

  it('reads a missing metadata header as {}, and never remembers a mutating request', async () => {
    // Guards sentRead's `?? '{}'` (→ `&&`, or another text: the same signed read, sent without the
    // header, was no longer found) and its `isMutating(method)` (→ `false`: a POST was remembered).
    const headers = signedHeaders(alice, 'GET', '/v1/x', { timestamp: now })
    const { 'x-identity-metadata': _, ...bare } = headers
    const first = await verify({ method: 'GET', path: '/v1/x', headers })
    expect(await verify({ method: 'GET', path: '/v1/x', headers: bare })).toBe(first)
    const write = signedHeaders(alice, 'POST', '/v1/x', { timestamp: now })
    const once = await verify({ method: 'POST', path: '/v1/x', headers: write })
    expect(await verify({ method: 'POST', path: '/v1/x', headers: write })).not.toBe(once)
  })
})

describe('signing digests (native-crypto.ts)', () => {
  it('writes v as 27 or 28, like ethers, for both recovery ids', () => {
    // Guards signDigestBytes's `27 + recid` (→ `27 - recid`): a test with one random key saw recid 0
    // half the time. These fixed digests give both.
    const key = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'
    const vs = new Set<string>()
    for (let i = 0; i < 8; i++) {
      const digest = hashMessage(`voucher ${i}`)
      const signature = signDigest(digest, key)
      expect(signature).toBe(new SigningKey(key).sign(digest).serialized)
      vs.add(signature.slice(-2))
    }
    expect([...vs].sort()).toEqual(['1b', '1c'])
  })

  it('refuses a key or digest that is not 0x-prefixed hex, naming it', () => {
    // Guards hexBytes's check (→ `false`: the text was read as far as it was hex) and its message.
    const key = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'
    expect(() => signDigest(`0X${hashMessage('x').slice(2)}`, key)).toThrow(
      new TypeError(`invalid hex string: 0X${hashMessage('x').slice(2, 20)}`),
    )
    expect(() => signDigest(hashMessage('x'), `${key}0`)).toThrow(
      /^invalid hex string: 0x4c0883a69102937d62$/,
    )
  })

  it('refuses hex with anything before its 0x, a doubled prefix included', () => {
    // guards: the static HEX expression's `^` removed (`/0x(?:[0-9a-fA-F]{2})*$/`): `0x0x…` and ` 0x…`
    // passed the check and were read as no bytes at all, failing later in secp256k1's words
    const key = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'
    const digest = hashMessage('x')
    expect(() => signDigest(`0x${digest}`, key)).toThrow(
      new TypeError(`invalid hex string: 0x${digest.slice(0, 18)}`),
    )
    expect(() => signDigest(digest, ` ${key}`)).toThrow(
      new TypeError(`invalid hex string:  ${key.slice(0, 19)}`),
    )
  })
})

describe('the replay store (replay-store.ts)', () => {
  it('keeps a request until its timestamp leaves the age window, and says whether it was used', async () => {
    // Guards usedSignature's `signer.timestamp + maxAgeS * 1000` (→ `-`, `/ 1000`) and signatureUsed's
    // `row !== undefined` (→ `true`, `false`).
    const timestamp = Date.now()
    const headers = signedHeaders(alice, 'POST', '/v1/x', { timestamp })
    const signer = await verifySignedFetch(
      { method: 'POST', path: '/v1/x', headers },
      { maxAgeS: MAX_AGE_S, now: () => timestamp },
    )
    const used = usedSignature(signer, MAX_AGE_S)
    expect(used).toEqual({ signature: signer.replayKey, expiresAt: new Date(timestamp + 60_000) })
    expect(await signatureUsed(db.sql, used)).toBe(false)
    expect(await recordSignature(db.sql, used)).toHaveLength(1)
    expect(await signatureUsed(db.sql, used)).toBe(true)
    expect(await recordSignature(db.sql, used)).toHaveLength(0)
  })
})
