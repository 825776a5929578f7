import { Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import { signedHeaders, signedInject } from '../src/testing/index.js'
import { useIdentities } from '../src/testing/vitest.js'
import { useSignedDemo } from './set-up.js'

const demo = useSignedDemo({ authMaxAgeS: 60 })
const { db } = demo
const [alice] = useIdentities(1)

const post = (headers: Record<string, string>, url = '/v1/things') =>
  demo.app.inject({ method: 'POST', url, headers, payload: { name: 'x' } })

async function expectRefused(headers: Record<string, string>, reason: string, message: RegExp) {
  const response = await post(headers)
  expect(response.statusCode).toBe(401)
  const body = response.json()
  expect(body).toMatchObject({ ok: false, code: 'unauthorized', data: { reason } })
  expect(body.error).toMatch(message)
}

describe('signed fetch', () => {
  it('accepts a signed request and exposes the lower-case owner address', async () => {
    const response = await signedInject(demo.app, alice, {
      method: 'POST',
      url: '/v1/things',
      payload: { name: 'x' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().data.signer).toBe(alice.address)
    expect(alice.address).toBe(alice.wallet.address.toLowerCase())
  })

  it('signs the path with its prefix and without the query string', async () => {
    const response = await signedInject(demo.app, alice, { method: 'GET', url: '/v1/things?page=2&q=a' })
    expect(response.statusCode).toBe(200)
    const unprefixed = signedHeaders(alice, 'GET', '/things')
    await expect(
      demo.app.inject({ method: 'GET', url: '/v1/things', headers: unprefixed }),
    ).resolves.toMatchObject({
      statusCode: 401,
    })
  })

  it('refuses an unsigned call before looking at the body', async () => {
    const response = await demo.app.inject({ method: 'POST', url: '/v1/things', payload: 'not json at all' })
    expect(response.statusCode).toBe(401)
    expect(response.json().data.reason).toBe('missing')
  })

  it('refuses malformed chain links', async () => {
    const good = signedHeaders(alice, 'POST', '/v1/things')
    await expectRefused({ ...good, 'x-identity-auth-chain-1': '{not json' }, 'malformed', /not valid JSON/)
    await expectRefused({ ...good, 'x-identity-auth-chain-1': '"a string"' }, 'malformed', /JSON object/)
    await expectRefused({ ...good, 'x-identity-auth-chain-1': '{"type":1}' }, 'malformed', /JSON object/)
  })

  it('refuses a missing or malformed timestamp', async () => {
    const { 'x-identity-timestamp': _, ...noTimestamp } = signedHeaders(alice, 'POST', '/v1/things')
    await expectRefused(noTimestamp, 'missing', /x-identity-timestamp/)
    await expectRefused(
      { ...signedHeaders(alice, 'POST', '/v1/things'), 'x-identity-timestamp': 'yesterday' },
      'malformed',
      /milliseconds/,
    )
  })

  it('refuses timestamps outside the age window in either direction', async () => {
    const past = signedHeaders(alice, 'POST', '/v1/things', { timestamp: Date.now() - 120_000 })
    await expectRefused(past, 'expired', /in the past/)
    const future = signedHeaders(alice, 'POST', '/v1/things', { timestamp: Date.now() + 120_000 })
    await expectRefused(future, 'expired', /in the future/)
  })

  it('refuses malformed metadata and the kernel-scene signer', async () => {
    await expectRefused(
      { ...signedHeaders(alice, 'POST', '/v1/things'), 'x-identity-metadata': '{oops' },
      'malformed',
      /metadata/,
    )
    await expectRefused(
      { ...signedHeaders(alice, 'POST', '/v1/things'), 'x-identity-metadata': '[]' },
      'malformed',
      /JSON object/,
    )
    const scene = signedHeaders(alice, 'POST', '/v1/things', {
      metadata: { signer: 'decentraland-kernel-scene' },
    })
    await expectRefused(scene, 'forbidden_signer', /scene/)
  })

  it('refuses a signature made for another method, path or timestamp', async () => {
    await expectRefused(signedHeaders(alice, 'PUT', '/v1/things'), 'payload_mismatch', /does not match/)
    await expectRefused(signedHeaders(alice, 'POST', '/v1/other'), 'payload_mismatch', /does not match/)
    const headers = signedHeaders(alice, 'POST', '/v1/things')
    await expectRefused(
      { ...headers, 'x-identity-timestamp': String(Number(headers['x-identity-timestamp']) + 1) },
      'payload_mismatch',
      /does not match/,
    )
  })

  it('refuses a chain whose signatures do not verify', async () => {
    const headers = signedHeaders(alice, 'POST', '/v1/things')
    const last = JSON.parse(headers['x-identity-auth-chain-2']!)
    const forged = await Wallet.createRandom().signMessage(last.payload)
    await expectRefused(
      { ...headers, 'x-identity-auth-chain-2': JSON.stringify({ ...last, signature: forged }) },
      'invalid_signature',
      /Invalid signature/,
    )
    // A chain that claims to belong to somebody else.
    const first = JSON.parse(headers['x-identity-auth-chain-0']!)
    await expectRefused(
      {
        ...signedHeaders(alice, 'POST', '/v1/things'),
        'x-identity-auth-chain-0': JSON.stringify({ ...first, payload: Wallet.createRandom().address }),
      },
      'invalid_signature',
      /Invalid signature/,
    )
  })

  it('refuses contract-wallet chains when no RPC is configured', async () => {
    const headers = signedHeaders(alice, 'POST', '/v1/things')
    const link = JSON.parse(headers['x-identity-auth-chain-1']!)
    await expectRefused(
      {
        ...headers,
        'x-identity-auth-chain-1': JSON.stringify({ ...link, type: 'ECDSA_EIP_1654_EPHEMERAL' }),
      },
      'invalid_signature',
      /EIP-1654/,
    )
  })

  it('refuses a replayed mutating request, on every demo.replica sharing the database', async () => {
    const headers = signedHeaders(alice, 'POST', '/v1/things')
    expect((await post(headers)).statusCode).toBe(200)
    await expectRefused(headers, 'replayed', /already used/)
    const onReplica = await demo.replica.inject({
      method: 'POST',
      url: '/v1/things',
      headers,
      payload: { name: 'x' },
    })
    expect(onReplica.statusCode).toBe(401)
    expect(onReplica.json().data.reason).toBe('replayed')
  })

  it('lets one signature through when many replays race', async () => {
    const headers = signedHeaders(alice, 'POST', '/v1/things')
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? demo.replica : demo.app).inject({
          method: 'POST',
          url: '/v1/things',
          headers,
          payload: { name: 'x' },
        }),
      ),
    )
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1)
    expect(responses.filter((r) => r.statusCode === 401)).toHaveLength(9)
  })

  it('leaves the signature to a route that records it in its own write (replay: route)', async () => {
    const headers = signedHeaders(alice, 'POST', '/v1/notes')
    const recorded = async () => (await db.sql`select count(*)::int as n from signed_fetch_replays`)[0]!.n
    const before = await recorded()
    const note = () => demo.app.inject({ method: 'POST', url: '/v1/notes', headers, payload: {} })
    const responses = await Promise.all([note(), note(), note()])
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 401, 401])
    expect(responses.find((r) => r.statusCode === 401)!.json().data.reason).toBe('replayed')
    const [notes] = await db.sql`select count(*)::int as n from kit_test_notes`
    expect([notes!.n, (await recorded()) - before]).toEqual([1, 1])
  })

  it('allows the same signed GET to be repeated within the window', async () => {
    const headers = signedHeaders(alice, 'GET', '/v1/things')
    for (let i = 0; i < 3; i++) {
      expect((await demo.app.inject({ method: 'GET', url: '/v1/things', headers })).statusCode).toBe(200)
    }
  })

  it('verifies optional signatures only when present', async () => {
    const anonymous = await demo.app.inject({ method: 'GET', url: '/v1/maybe' })
    expect(anonymous.json().data.signer).toBeNull()
    const signed = await signedInject(demo.app, alice, { method: 'GET', url: '/v1/maybe' })
    expect(signed.json().data.signer).toBe(alice.address)
    const broken = await demo.app.inject({
      method: 'GET',
      url: '/v1/maybe',
      headers: { 'x-identity-auth-chain-0': 'x' },
    })
    expect(broken.statusCode).toBe(401)
  })
})
