import { fuzzApp } from '@genesis/common/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type Land, startLand } from './helpers.js'

// Every class of bad request an outside fuzz run sends, to every route (both prefixes, the images too).
let land: Land
beforeAll(async () => {
  land = await startLand({ seeded: true })
})
afterAll(async () => {
  await land?.close()
})

it('no 5xx, every answer in the envelope, no error answer over a few KB', async () => {
  const report = await fuzzApp(land.app)
  expect(report.sent).toBeGreaterThan(1000)
  expect(report.failures).toEqual([])
}, 120_000)
