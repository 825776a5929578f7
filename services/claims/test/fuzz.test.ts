import { randomUUID } from 'node:crypto'
import { createIdentity, fuzzApp, type Identity, signedHeaders } from '@genesis/common/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { admin, setUp, type TestContext } from './helpers.js'

// Every class of bad request an outside fuzz run sends, to every route: signed, and as the operator.
let t: TestContext
let alice: Identity
beforeAll(async () => {
  t = await setUp()
  alice = await createIdentity()
})
afterAll(() => t?.close())

it.each(['signed', 'operator'] as const)(
  'no 5xx, every answer in the envelope, no error answer over a few KB (%s)',
  async (as) => {
    const report = await fuzzApp(t.app, {
      headersFor: (route, method, path) =>
        !route.auth
          ? {}
          : as === 'operator'
            ? admin
            : signedHeaders(alice, method, path, { metadata: { nonce: randomUUID() } }),
    })
    expect(report.sent).toBeGreaterThan(150)
    expect(report.failures).toEqual([])
  },
  180_000,
)
