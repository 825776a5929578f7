import { request as rawRequest } from 'node:http'
import { connect } from 'node:net'
import { Authenticator } from '@dcl/crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { type App, pruneSignatures, signedFetchPayload, verifySignedFetch } from '../src/index.js'
import {
  ACCEPTED_SPELLINGS as ACCEPTED_VARIANTS,
  createIdentity,
  type Identity,
  REFUSED_SPELLINGS as REFUSED_VARIANTS,
  respellSignature as respelled,
  respellLink,
  signedHeaders,
} from '../src/testing/index.js'
import { useIdentities } from '../src/testing/vitest.js'
import { useSignedDemo } from './set-up.js'

const MAX_AGE_S = 60
const demo = useSignedDemo({ authMaxAgeS: MAX_AGE_S })
const { db } = demo
const [alice] = useIdentities(1)

const send = (on: App, url: string, headers: Record<string, string>) =>
  on.inject({ method: 'POST', url, headers, payload: { name: 'x' } })

/** A chain whose owner signs the request directly (no ephemeral key): verified by @dcl/crypto itself. */
async function directlySigned(identity: Identity, method: string, path: string) {
  const timestamp = Date.now()
  const payload = signedFetchPayload(method, path, timestamp, '{}')
  return {
    'x-identity-timestamp': String(timestamp),
    'x-identity-metadata': '{}',
    'x-identity-auth-chain-0': JSON.stringify({
      type: 'SIGNER',
      payload: identity.wallet.address,
      signature: '',
    }),
    'x-identity-auth-chain-1': JSON.stringify({
      type: 'ECDSA_SIGNED_ENTITY',
      payload,
      signature: await identity.wallet.signMessage(payload),
    }),
  } as Record<string, string>
}

describe('replay protection by what was signed', () => {
  // Defect: the used-signature store keyed on the signature's text, while verification accepts it upper-case,
  // with v as 0/1 and in its high-s form: each re-spelling was a "new" signature, replayable at will, on
  // either replica, and (the body being unsigned) with any body.
  const chains = {
    'ephemeral-key chain': (method: string, path: string) =>
      Promise.resolve(signedHeaders(alice, method, path)),
    'owner-signed chain': (method: string, path: string) => directlySigned(alice, method, path),
  }
  for (const [chainName, sign] of Object.entries(chains)) {
    for (const url of ['/v1/things', '/v1/notes']) {
      it(`${chainName}, ${url}: every spelling verification accepts is one replay, on either demo.replica`, async () => {
        for (const variant of ACCEPTED_VARIANTS) {
          const headers = await sign('POST', url)
          expect((await send(demo.app, url, headers)).statusCode, variant).toBe(200)
          const replay = await send(demo.replica, url, respelled(headers, variant))
          expect([replay.statusCode, replay.json().data?.reason], variant).toEqual([401, 'replayed'])
          // and the other way round: a re-spelled signature used first, the original is its replay
          const fresh = await sign('POST', url)
          expect((await send(demo.replica, url, respelled(fresh, variant))).statusCode, variant).toBe(200)
          const original = await send(demo.app, url, fresh)
          expect([original.statusCode, original.json().data?.reason], variant).toEqual([401, 'replayed'])
          for (const other of ACCEPTED_VARIANTS) {
            const again = await send(other.length % 2 ? demo.app : demo.replica, url, respelled(fresh, other))
            expect(again.statusCode, `${variant} then ${other}`).toBe(401)
          }
        }
      })

      it(`${chainName}, ${url}: the spellings verification refuses are refused 401`, async () => {
        for (const variant of REFUSED_VARIANTS) {
          const headers = await sign('POST', url)
          const answer = await send(demo.app, url, respelled(headers, variant))
          expect([answer.statusCode, answer.json().data?.reason], variant).toEqual([401, 'invalid_signature'])
          // refused, so not used: the genuine request still goes through once
          expect((await send(demo.replica, url, headers)).statusCode, variant).toBe(200)
        }
      })
    }
  }

  it('lets exactly one spelling through when all race on two replicas', async () => {
    for (const url of ['/v1/things', '/v1/notes']) {
      const headers = signedHeaders(alice, 'POST', url)
      const attempts = [headers, ...ACCEPTED_VARIANTS.map((v) => respelled(headers, v))]
      const answers = await Promise.all(attempts.map((h, i) => send(i % 2 ? demo.replica : demo.app, url, h)))
      expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1)
      expect(answers.filter((a) => a.statusCode === 401)).toHaveLength(attempts.length - 1)
    }
  })

  it('counts a re-spelled delegation (the owner → ephemeral link) as the same request', async () => {
    const headers = signedHeaders(alice, 'POST', '/v1/things')
    expect((await send(demo.app, '/v1/things', headers)).statusCode).toBe(200)
    for (const variant of ACCEPTED_VARIANTS) {
      const replay = await send(demo.replica, '/v1/things', respellLink(headers, 1, variant))
      expect([replay.statusCode, replay.json().data?.reason], variant).toEqual([401, 'replayed'])
    }
  })

  it('verifies a re-spelled read afresh rather than trusting the read cache', async () => {
    const headers = signedHeaders(alice, 'GET', '/v1/things')
    expect((await demo.app.inject({ method: 'GET', url: '/v1/things', headers })).statusCode).toBe(200)
    for (const variant of ACCEPTED_VARIANTS) {
      const read = await demo.app.inject({
        method: 'GET',
        url: '/v1/things',
        headers: respelled(headers, variant),
      })
      expect([read.statusCode, read.json().data?.signer], variant).toEqual([200, alice.address])
    }
    for (const variant of REFUSED_VARIANTS) {
      const read = await demo.app.inject({
        method: 'GET',
        url: '/v1/things',
        headers: respelled(headers, variant),
      })
      expect(read.statusCode, variant).toBe(401)
    }
  })

  it('keeps a used signature past a prune while it is inside the age window', async () => {
    // Guards replay-store.ts keeping a signature until timestamp + age window. Mutation: usedSignature's
    // expiresAt set to the request's own timestamp (`new Date(signer.timestamp)`) → the prune forgets a
    // signature that still passes the age check, and this replay answers 200.
    const headers = signedHeaders(alice, 'POST', '/v1/things', {
      timestamp: Date.now() - (MAX_AGE_S / 2) * 1000,
    })
    expect((await send(demo.app, '/v1/things', headers)).statusCode).toBe(200)
    await pruneSignatures(db.sql)
    const replay = await send(demo.replica, '/v1/things', headers)
    expect([replay.statusCode, replay.json().data?.reason]).toEqual([401, 'replayed'])
    // and one that can no longer pass the age check is forgotten
    await db.sql`update signed_fetch_replays set expires_at = now() - interval '1 second'`
    expect(await pruneSignatures(db.sql)).toBeGreaterThan(0)
    const [left] = await db.sql`select count(*)::int as n from signed_fetch_replays`
    expect(left!.n).toBe(0)
  })
})

/** Headers for a request whose metadata header is exactly `metadata` (the payload signs it lower-cased). */
function signedWithMetadata(identity: Identity, method: string, path: string, metadata: string) {
  const timestamp = Date.now()
  const chain = Authenticator.signPayload(
    identity.authIdentity,
    signedFetchPayload(method, path, timestamp, metadata),
  )
  const headers: Record<string, string> = {
    'x-identity-timestamp': String(timestamp),
    'x-identity-metadata': metadata,
  }
  chain.forEach((link, i) => {
    headers[`x-identity-auth-chain-${i}`] = JSON.stringify(link)
  })
  return headers
}

describe('scene signer', () => {
  // Defect: the refusal read `metadata.signer` as sent, but the signature covers the lower-cased text, so
  // the scene's own signed request re-sent as {"signer":"DECENTRALAND-KERNEL-SCENE"} or {"Signer":…}
  // kept a valid signature and was accepted.
  const spellings = [
    '{"signer":"decentraland-kernel-scene"}',
    '{"signer":"DECENTRALAND-KERNEL-SCENE"}',
    '{"Signer":"decentraland-kernel-scene"}',
    '{"SIGNER":"Decentraland-Kernel-Scene","x":1}',
    '{"signer":"decentraland-kernel-scen\\u0045"}',
    '{"sign\\u0045r":"decentraland-kernel-scene"}',
    // U+212A KELVIN SIGN lower-cases to "k": the payload reads "kernel"
    '{"signer":"decentraland-\u212aernel-scene"}',
  ]
  it('is refused whatever the case of its key and value, on reads and writes', async () => {
    for (const metadata of spellings) {
      for (const method of ['GET', 'POST']) {
        const headers = signedWithMetadata(alice, method, '/v1/things', metadata)
        const answer = await demo.app.inject({
          method,
          url: '/v1/things',
          headers,
          ...(method === 'POST' ? { payload: { name: 'x' } } : {}),
        })
        expect([answer.statusCode, answer.json().data?.reason], `${method} ${metadata}`).toEqual([
          401,
          'forbidden_signer',
        ])
      }
    }
  })

  it('still accepts other signers and other keys naming the scene', async () => {
    for (const metadata of [
      '{"signer":"dcl:explorer"}',
      '{"origin":"decentraland-kernel-scene"}',
      '{"signer":{"name":"decentraland-kernel-scene"}}',
    ]) {
      const headers = signedWithMetadata(alice, 'GET', '/v1/things', metadata)
      expect(
        (await demo.app.inject({ method: 'GET', url: '/v1/things', headers })).statusCode,
        metadata,
      ).toBe(200)
    }
  })
})

describe('timestamp spelling', () => {
  // Defect: "0" + timestamp passed the format check (digits), was read as the same number, and then failed
  // as payload_mismatch (the payload holds the number's usual spelling) or, signed as sent, passed with a
  // second spelling of one number. One spelling: a leading zero is malformed.
  it('refuses a zero-padded timestamp as malformed, however it was signed', async () => {
    const timestamp = Date.now()
    for (const signedAs of [String(timestamp), `0${timestamp}`]) {
      const headers = signedWithMetadata(alice, 'POST', '/v1/things', '{}')
      const chain = Authenticator.signPayload(alice.authIdentity, `post:/v1/things:${signedAs}:{}`)
      const padded = {
        ...headers,
        'x-identity-timestamp': `0${timestamp}`,
        'x-identity-auth-chain-2': JSON.stringify(chain[2]),
      }
      const answer = await send(demo.app, '/v1/things', padded)
      expect([answer.statusCode, answer.json().data?.reason], signedAs).toEqual([401, 'malformed'])
      expect(answer.json().error).toMatch(/leading zeros/)
    }
  })
})

describe('absolute-form request target', () => {
  // Defect: `POST http://host:port/v1/things HTTP/1.1` (as a proxy sends it) had the whole URL taken as
  // the signed path, so a correctly signed request was refused and the signature had to cover the host.
  let port: number
  beforeAll(async () => {
    await demo.app.listen({ host: '127.0.0.1', port: 0 })
    port = (demo.app.server.address() as { port: number }).port
  })

  /** One raw HTTP/1.1 exchange; the answer's status line and body. */
  function raw(head: string, body = ''): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      // Written, not ended: Node aborts a request whose client half-closes before the answer.
      const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n${body}`))
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk) => {
        text += chunk
      })
      socket.on('error', reject)
      socket.on('end', () => {
        const [header = '', rest = ''] = text.split('\r\n\r\n', 2)
        resolve({ status: Number(header.split(' ')[1]), body: rest })
      })
    })
  }

  const headerLines = (headers: Record<string, string>) =>
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n')

  it('signs the path of the URL', async () => {
    const body = '{"name":"x"}'
    const common = `Host: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close`
    const good = signedHeaders(alice, 'POST', '/v1/things')
    const answer = await raw(
      `POST http://127.0.0.1:${port}/v1/things?x=1 HTTP/1.1\r\n${common}\r\n${headerLines(good)}`,
      body,
    )
    expect([answer.status, JSON.parse(answer.body)]).toEqual([
      200,
      { ok: true, data: { signer: alice.address } },
    ])
    const whole = signedHeaders(alice, 'POST', `http://127.0.0.1:${port}/v1/things`)
    const refused = await raw(
      `POST http://127.0.0.1:${port}/v1/things HTTP/1.1\r\n${common}\r\n${headerLines(whole)}`,
      body,
    )
    expect([refused.status, JSON.parse(refused.body).data.reason]).toEqual([401, 'payload_mismatch'])
  })

  it('reads the same through an HTTP client sending the absolute form', async () => {
    const headers = signedHeaders(alice, 'GET', '/v1/things')
    const status = await new Promise<number>((resolve, reject) => {
      const req = rawRequest(
        { host: '127.0.0.1', port, method: 'GET', path: `http://127.0.0.1:${port}/v1/things`, headers },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(200)
  })
})

describe('a cached delegation', () => {
  it('is refused on a new request once its ephemeral key has expired', async () => {
    // Guards `delegation.expiresAt <= now` in verify.ts: the delegation cache keeps the owner → ephemeral
    // link verified once, and only that line checks the key's expiry on later requests. Mutation: delete
    // the line → a stolen session key keeps working for the life of the process, and this request passes.
    const bob = await createIdentity(undefined, 2)
    const start = Date.now()
    const first = signedHeaders(bob, 'POST', '/v1/things', { timestamp: start })
    await expect(
      verifySignedFetch(
        { method: 'POST', path: '/v1/things', headers: first },
        { maxAgeS: MAX_AGE_S, now: () => start },
      ),
    ).resolves.toMatchObject({ address: bob.address })
    const later = start + 3 * 60_000
    const second = signedHeaders(bob, 'POST', '/v1/things', { timestamp: later })
    await expect(
      verifySignedFetch(
        { method: 'POST', path: '/v1/things', headers: second },
        { maxAgeS: MAX_AGE_S, now: () => later },
      ),
    ).rejects.toMatchObject({
      statusCode: 401,
      data: { reason: 'invalid_signature' },
      message: /ephemeral key expired at \d{4}-/,
    })
  })
})
