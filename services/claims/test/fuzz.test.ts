import { randomUUID } from 'node:crypto'
import { fuzzApp, signedHeaders } from '@genesis/common/testing'
import { expect, it } from 'vitest'
import { admin, useIdentities, useService } from './helpers.js'

// Every class of bad request an outside fuzz run sends, to every route: signed, and as the operator.
const t = useService()
const [alice] = useIdentities(1)

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
