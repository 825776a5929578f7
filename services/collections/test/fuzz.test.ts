import { randomUUID } from 'node:crypto'
import { fuzzApp, signedHeaders } from '@genesis/common/testing'
import { expect, it } from 'vitest'
import { useHarness, useIdentities } from './helpers.js'

// Every class of bad request an outside fuzz run sends, to every route, signed where the route asks.
const h = useHarness()
const [alice] = useIdentities(1)

it('no 5xx, every answer in the envelope, no error answer over a few KB', async () => {
  const report = await fuzzApp(h.app, {
    headersFor: (route, method, path) =>
      route.auth ? signedHeaders(alice, method, path, { metadata: { nonce: randomUUID() } }) : {},
  })
  expect(report.sent).toBeGreaterThan(400)
  expect(report.failures).toEqual([])
}, 180_000)
