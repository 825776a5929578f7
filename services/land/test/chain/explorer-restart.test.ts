/// <reference lib="dom" />
// The callbacks given to page.$eval and waitForFunction run in the page, on its DOM.
// The explorer open in a browser while the development chain it shows is stopped and started afresh
// (`pnpm chain` again): without a reload it draws the new chain's owners, asks for tiles of the new data
// only, and never shows the old chain's owner again.

import { type Browser, checkChromium, hasChromium, openBrowser } from '@genesis/common/testing/browser'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { ChainStatus, Parcel } from '@genesis/wire/land'
import { afterEach, describe, expect, it } from 'vitest'
import { chainEnv, perTest, within } from './helpers.js'

checkChromium('explorer across a chain restart')
const skip = chainTestsSkipReason()

const t = perTest()
afterEach(() => t.closeAll())

describe.skipIf(skip !== null || !hasChromium)('the explorer across a chain restart', () => {
  it('shows the new chain’s owner of the selected parcel and its tiles, without a reload', async () => {
    const first = await t.world()
    const port = first.anvil.port
    const alice = first.alice.address.toLowerCase()
    await first.send(first.land, 'assignMultipleParcels', [3], [40], alice)
    const db = await t.database()
    // The replica's index trails its database by 3 s (a change travelling to a busy replica, made long):
    // an explorer that redrew on the database's newest block would ask before the index has it, draw the
    // old owner under the new version and never ask again.
    const r = await t.replica(db.url, {
      ...chainEnv(first.d, first.anvil.url),
      LAND_REFRESH_DEBOUNCE_MS: '3000',
    })
    const ownerOf = async () => (await r.get<Parcel>('/parcels/3/40')).body.data.owner
    await within(20_000, async () => (await ownerOf()) === alice, 'first chain indexed')
    const base = await r.app.listen({ port: 0, host: '127.0.0.1' })

    const browser: Browser = await openBrowser({ viewport: { width: 1024, height: 700 }, timeoutMs: 30_000 })
    t.defer(() => browser.close())
    const { page, problems } = browser
    // every tile the page asks for (the explorer draws its map from /map.png)
    const tiles: string[] = []
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/map.png') tiles.push(request.url())
    })
    const ownerShown = () =>
      page.$eval('#parcel dd[data-field="owner"]', (dd) => dd.firstChild?.textContent ?? '')
    // the explorer looks at /status every 2 s; a loaded CI machine is given a minute, and a miss says which
    const untilOwnerShown = (owner: string, what: string) =>
      page
        .waitForFunction(
          (expected) =>
            document.querySelector('#parcel dd[data-field="owner"]')?.firstChild?.textContent === expected,
          owner,
          { timeout: 60_000 },
        )
        .catch(async (err: unknown) => {
          throw new Error(`${what}: the details show ${JSON.stringify(await ownerShown())}, not ${owner}`, {
            cause: err,
          })
        })
    await page.goto(`${base}/#c=3,40&z=20&p=3,40`)
    await untilOwnerShown(alice, 'first chain shown')
    // a mark the page keeps only as long as it is not loaded again
    await page.evaluate(() => {
      ;(window as unknown as { unreloaded: boolean }).unreloaded = true
    })
    const drawnBefore = new Set(tiles)

    // `pnpm chain` again: a new node on the same port, the same contracts, the parcel now Bob's
    await first.close()
    const second = await t.world({ port })
    const bob = second.bob.address.toLowerCase()
    await second.send(second.land, 'assignMultipleParcels', [3], [40], bob)
    await within(30_000, async () => (await ownerOf()) === bob, 'second chain indexed')

    await untilOwnerShown(bob, 'new chain shown without a reload')
    expect(await ownerShown()).toBe(bob)
    expect(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded)).toBe(true)
    // the map was asked again for the new data: tiles it had not asked for before
    await page.waitForSelector('#map[aria-busy="false"]')
    const drawnNow = await page.$$eval('#layers img', (images) =>
      (images as HTMLImageElement[]).map((img) => img.src),
    )
    expect(drawnNow.length).toBeGreaterThan(0)
    expect(drawnNow.filter((src) => drawnBefore.has(src))).toEqual([])
    // keyed by the block this replica's index holds: bob's, the last block of the new chain
    const status = (await r.get<ChainStatus>('/status')).body.data
    expect(status.served_block_hash).toBe(status.block_hash)
    for (const src of drawnNow)
      expect(new URL(src).searchParams.get('v')).toBe(status.served_block_hash!.slice(2, 14))
    expect(problems).toEqual([])
  }, 180_000)
})
