/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The callbacks given to page.evaluate run in the page.
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { type Browser, checkChromium, hasChromium, openBrowser } from '@genesis/common/testing/browser'
import { build } from 'esbuild'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GenesisClient } from '../src/index.js'
import { ADMIN_TOKEN, type Running, startServices } from './services.js'

/**
 * The client as a dapp uses it: bundled for the browser, loaded by a page of another origin than the
 * service's, run in Debian's Chromium against the real claims service. Node's fetch knows no CORS; here the
 * preflights, the signed headers and which answer headers a page may read are the browser's to decide.
 */

checkChromium('client browser test')

type Genesis = typeof import('../src/index.js') & { Wallet: typeof Wallet }
declare global {
  interface Window {
    genesis: Genesis
  }
}

const clientDir = fileURLToPath(new URL('..', import.meta.url))

/** The client and ethers' Wallet in one module, as a dapp's bundler would make it. */
async function bundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: "export * from './src/index.ts'\nexport { Wallet } from 'ethers'",
      resolveDir: clientDir,
    },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

/** The dapp's own origin: a page that loads the bundle and puts it on `window.genesis`. */
async function serveDapp(code: string): Promise<{ server: Server; url: string }> {
  const page =
    '<!doctype html><meta charset="utf-8"><title>dapp</title>' +
    '<script type="module">import * as genesis from "/client.js"; window.genesis = genesis</script>'
  const server = createServer((request, response) => {
    if (request.url === '/client.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(code)
    } else {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }
}

describe.skipIf(!hasChromium)('the client in a browser, on another origin', () => {
  let services: Running
  let dapp: { server: Server; url: string }
  let browser: Browser

  beforeAll(async () => {
    ;[services, dapp, browser] = await Promise.all([
      startServices({ claims: true }),
      bundle().then(serveDapp),
      openBrowser({ viewport: { width: 800, height: 600 }, timeoutMs: 30_000 }),
    ])
    await browser.page.goto(dapp.url)
    await browser.page.waitForFunction(() => window.genesis !== undefined)
  })
  afterAll(async () => {
    await browser?.close()
    dapp?.server.close()
    await services?.close()
  })

  it('signs its calls, and reports a create answered again for the same Idempotency-Key as replayed', async () => {
    const owner = Wallet.createRandom()
    const admin = new GenesisClient({ urls: services.urls, adminToken: ADMIN_TOKEN })
    await admin.claimsAdmin.grantRewards([
      { user: owner.address, chain_id: '137', contract: `0x${'11'.repeat(20)}`, item_id: '1' },
    ])
    const seen = await browser.page.evaluate(
      async ({ claimsUrl, privateKey, key }) => {
        const { GenesisClient, Wallet, createIdentity } = window.genesis
        const identity = await createIdentity(new Wallet(privateKey))
        const client = new GenesisClient({ urls: { claims: claimsUrl }, identity })
        const rewards = (await client.claims.listRewards()).items
        const made = await client.claims.createClaim([rewards[0]!.id], { idempotencyKey: key })
        const again = await client.claims.createClaim([rewards[0]!.id], { idempotencyKey: key })
        return {
          origin: location.origin,
          rewards: rewards.length,
          replayed: [made.replayed, again.replayed],
          sameClaim: made.claim.id === again.claim.id,
        }
      },
      { claimsUrl: services.urls.claims, privateKey: owner.privateKey, key: randomUUID() },
    )
    expect(seen.origin).not.toBe(new URL(services.urls.claims).origin)
    expect(seen).toMatchObject({ rewards: 1, replayed: [false, true], sameClaim: true })
    expect(browser.problems).toEqual([])
  })
})
