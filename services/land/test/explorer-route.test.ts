import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXPLORER_ASSETS, EXPLORER_CSP, EXPLORER_PAGE, explorerDir } from '../src/routes/explorer.js'
import { type Land, startLand } from './helpers.js'

/** The explorer's files as the service serves them (the browser test drives the page itself). */

let land: Land

beforeAll(async () => {
  land = await startLand({ seeded: false })
})

afterAll(async () => {
  await land?.close()
})

const get = (url: string, headers: Record<string, string> = {}) =>
  land.app.inject({ method: 'GET', url, headers })

/** The asset URLs the page links to, e.g. `/explorer/explorer.js?v=…`. */
const assetLinks = (html: string) => [...html.matchAll(/"(\/explorer\/[^"?]+\?v=[^"]+)"/g)].map((m) => m[1]!)

describe('the explorer page', () => {
  it('is served at / and /explorer, the same HTML, with its CSP and an ETag', async () => {
    const root = await get('/')
    const explorer = await get('/explorer')
    for (const res of [root, explorer]) {
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['content-security-policy']).toBe(EXPLORER_CSP)
      expect(res.headers['cache-control']).toBe('no-cache')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers.etag).toMatch(/^"[\w-]{16}"$/)
    }
    expect(explorer.body).toBe(root.body)
    expect(root.body).toContain('<title>Genesis City · land explorer</title>')
  })

  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const first = await get('/')
    const again = await get('/', { 'if-none-match': first.headers.etag as string })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    const head = await land.app.inject({ method: 'HEAD', url: '/explorer' })
    expect(head.statusCode).toBe(200)
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(head.body).toBe('')
  })

  it('has no inline script or style, and its script no eval (the CSP allows neither)', () => {
    const html = readFileSync(join(explorerDir, EXPLORER_PAGE), 'utf8')
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBe(1)
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/explorer\//)
      expect(body!.trim()).toBe('')
    }
    expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/i)
    const script = readFileSync(join(explorerDir, 'explorer.js'), 'utf8')
    expect(script).not.toMatch(/\beval\(|new Function\(|innerHTML|setTimeout\(['"`]/)
  })

  it('links every asset by its content version, kept a year; unversioned ones are revalidated', async () => {
    const html = (await get('/')).body
    const links = assetLinks(html)
    const names = new Set(links.map((link) => link.slice('/explorer/'.length).split('?')[0]))
    expect([...names].sort()).toEqual([...EXPLORER_ASSETS].sort())
    const types: Record<string, string> = {
      'explorer.js': 'text/javascript; charset=utf-8',
      'explorer.css': 'text/css; charset=utf-8',
      'favicon.svg': 'image/svg+xml',
    }
    for (const link of new Set(links)) {
      const name = link.slice('/explorer/'.length).split('?')[0]!
      const versioned = await get(link)
      expect(versioned.statusCode, link).toBe(200)
      expect(versioned.headers['content-type']).toBe(types[name])
      expect(versioned.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(versioned.rawPayload.equals(readFileSync(join(explorerDir, name)))).toBe(true)

      const plain = await get(`/explorer/${name}`)
      expect(plain.statusCode).toBe(200)
      expect(plain.headers['cache-control']).toBe('no-cache')
      expect(plain.headers.etag).toBe(versioned.headers.etag)
      const stale = await get(`/explorer/${name}?v=old`)
      expect(stale.headers['cache-control']).toBe('no-cache')
      const revalidated = await get(`/explorer/${name}`, { 'if-none-match': plain.headers.etag as string })
      expect(revalidated.statusCode).toBe(304)
    }
  })

  it('ships exactly the files it serves', () => {
    expect(readdirSync(explorerDir).sort()).toEqual([EXPLORER_PAGE, ...EXPLORER_ASSETS].sort())
  })

  it('answers an unknown file, or the page under /v1, with a 404 in the envelope', async () => {
    for (const url of ['/explorer/secret.txt', '/explorer/..%2Fpackage.json', '/v1/explorer', '/v1/']) {
      const res = await get(url)
      expect(res.statusCode, url).toBe(404)
      expect(res.json(), url).toMatchObject({ ok: false, code: 'not_found' })
    }
  })

  it('is not in the OpenAPI document', async () => {
    const paths = Object.keys((await get('/openapi.json')).json<{ paths: object }>().paths)
    expect(paths.length).toBeGreaterThan(10)
    expect(paths.filter((path) => path === '/' || path.startsWith('/explorer'))).toEqual([])
  })
})
