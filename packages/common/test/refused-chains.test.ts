// Refusing is cheap before it is expensive: a chain refused once is refused again without recovering a
// signature, and no valid request is ever refused by what the cache keeps.
import { expect, it } from 'vitest'
import { type Admission, createAdmission } from '../src/admission.js'
import { verifySignedFetch } from '../src/auth/signed-fetch.js'
import { costlyInvalidHeaders, createIdentity, signedHeaders } from '../src/testing/index.js'

/** The kit's admission, counting the verifications that were given a turn (each recovers signatures). */
function countingAdmission() {
  const inner = createAdmission({ concurrency: 1, queue: 100, maxWaitMs: 10_000, retryAfterS: 1, what: 'x' })
  let turns = 0
  const admission: Admission = {
    ...inner,
    run: (work, caller) => {
      turns++
      return inner.run(work, caller)
    },
  }
  return { admission, turns: () => turns }
}

it('refuses the same invalid long chain again without a turn of verification; others still verify', async () => {
  const { admission, turns } = countingAdmission()
  const options = { maxAgeS: 300, admission }
  const request = { method: 'POST', path: '/v1/things', headers: costlyInvalidHeaders('POST', '/v1/things') }
  const first = await verifySignedFetch(request, options).catch((error: Error) => error)
  expect(first).toBeInstanceOf(Error)
  expect(String((first as Error).message)).toMatch(/^Invalid signature: /)
  expect(turns()).toBe(1)
  for (let i = 0; i < 5; i++) {
    const again = await verifySignedFetch(request, options).catch((error: Error) => error)
    expect(again).toBe(first)
  }
  expect(turns()).toBe(1)

  // a malformed chain or a payload of another request never takes a turn either
  const otherPath = await verifySignedFetch({ ...request, path: '/v1/other' }, options).catch((e: Error) => e)
  expect((otherPath as Error).message).toMatch(/^The signed payload does not match this request/)
  expect(turns()).toBe(1)

  // a genuine request is verified (it is another text: the cache holds only what was refused)
  const alice = await createIdentity()
  const genuine = await verifySignedFetch(
    { method: 'POST', path: '/v1/things', headers: signedHeaders(alice, 'POST', '/v1/things') },
    options,
  )
  expect(genuine.address).toBe(alice.address)
  expect(turns()).toBe(2)
})
