import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import type { RoutePlugin } from '@genesis/common'
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import type { Context } from '../context.js'
import { packageRoot } from '../paths.js'
import { matchesIfNoneMatch } from '../render/etag.js'

/** The explorer's static files: shipped in the package (and so in the bundle), beside dist/. */
export const explorerDir = join(packageRoot, 'explorer')

/** The page's own files; the page is the only HTML, everything else is an asset it names. */
export const EXPLORER_PAGE = 'index.html'
export const EXPLORER_ASSETS = ['explorer.js', 'explorer.css', 'favicon.svg'] as const

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

/**
 * Only files from this origin, no inline script or style, no eval: the page reads the JSON routes and
 * the PNG routes of the same service and nothing else.
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

// The page is revalidated on every load (cheap with its ETag); assets are named with their content hash
// (`?v=`), so a versioned URL may be kept for a year and an unversioned one is revalidated.
const PAGE_CACHE = 'no-cache'
const VERSIONED_CACHE = 'public, max-age=31536000, immutable'

interface StaticFile {
  body: Buffer
  type: string
  etag: string
  /** The content hash, as the page puts it in `?v=`. */
  version: string
}

function staticFile(name: string, body: Buffer): StaticFile {
  const type = CONTENT_TYPES[extname(name)]
  if (!type) throw new Error(`explorer: no content type for ${name}`)
  const version = createHash('sha256').update(body).digest('base64url').slice(0, 16)
  return { body, type, etag: `"${version}"`, version }
}

/** Reads the files once, at registration; the page's asset links get their versions. */
export function loadExplorerFiles(dir = explorerDir): { page: StaticFile; assets: Map<string, StaticFile> } {
  const assets = new Map<string, StaticFile>()
  for (const name of EXPLORER_ASSETS) assets.set(name, staticFile(name, readFileSync(join(dir, name))))
  let html = readFileSync(join(dir, EXPLORER_PAGE), 'utf8')
  for (const [name, file] of assets) {
    html = html.replaceAll(`"/explorer/${name}"`, `"/explorer/${name}?v=${file.version}"`)
  }
  return { page: staticFile(EXPLORER_PAGE, Buffer.from(html)), assets }
}

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile, cacheControl: string) {
  reply
    .header('etag', file.etag)
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff')
  if (matchesIfNoneMatch(request.headers['if-none-match'], file.etag)) return reply.code(304).send()
  return reply.type(file.type).send(file.body)
}

/**
 * The land explorer (README "Map explorer"): one page at `/` and `/explorer`, its assets under
 * `/explorer/`. Not API: hidden from the OpenAPI document, and not under `/v1`.
 */
export const explorerRoutes: RoutePlugin<Context> = async (app) => {
  const { page, assets } = loadExplorerFiles()
  // `hide` is @fastify/swagger's extension of the schema.
  const schema = { hide: true } as FastifySchema

  const sendPage = (request: FastifyRequest, reply: FastifyReply) => {
    reply
      .header('content-security-policy', EXPLORER_CSP)
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
    return send(request, reply, page, PAGE_CACHE)
  }
  app.get('/', { schema }, sendPage)
  app.get('/explorer', { schema }, sendPage)

  app.get<{ Params: { name: string }; Querystring: { v?: string } }>(
    '/explorer/:name',
    { schema },
    (request, reply) => {
      const file = assets.get(request.params.name)
      // An unknown name falls through to the kit's 404 in the error envelope.
      if (!file) return reply.callNotFound()
      const versioned = request.query.v === file.version
      return send(request, reply, file, versioned ? VERSIONED_CACHE : PAGE_CACHE)
    },
  )
}
