import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import { atlasPageNotBuilt } from '../errors.js'
import { packageRoot } from '../paths.js'
import { matchesIfNoneMatch } from '../render/etag.js'
import { EXPLORER_CSP } from './explorer.js'
import { digest } from './validators.js'

/** Where `pnpm build` puts the bundled Atlas view (esbuild, from scripts/atlas/). */
export const atlasPageDir = join(packageRoot, 'dist', 'atlas-page')

const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'atlas.js': 'text/javascript; charset=utf-8',
  'atlas.css': 'text/css; charset=utf-8',
}

/**
 * The explorer's policy, plus the one inline style the map component injects (react-virtualized-auto-sizer's
 * resize-detection rules), allowed by its hash rather than by 'unsafe-inline'.
 */
export const ATLAS_CSP = EXPLORER_CSP.replace(
  "style-src 'self'",
  "style-src 'self' 'sha256-deDIoPlRijnpfbTDYsK+8JmDfUBmpwpnb0L/SUV8NeU='",
)

interface PageFile {
  body: Buffer
  type: string
  etag: string
}

/**
 * The Atlas view: Decentraland's map component drawing this service's /v2/tiles, at `/atlas`. Not API
 * (hidden from the OpenAPI document). The bundle is built, not committed: without it, a 404 that says so.
 */
export const atlasPageRoutes: FastifyPluginAsync<{ dir?: string }> = async (app, { dir = atlasPageDir }) => {
  const schema = { hide: true } as FastifySchema
  const loaded = new Map<string, PageFile>()

  async function file(name: string): Promise<PageFile> {
    const cached = loaded.get(name)
    if (cached) return cached
    const body = await readFile(join(dir, name)).catch(() => undefined)
    if (!body) throw atlasPageNotBuilt()
    const entry = { body, type: FILES[name]!, etag: `"${digest(body)}"` }
    loaded.set(name, entry)
    return entry
  }

  async function send(request: FastifyRequest, reply: FastifyReply, name: string) {
    const page = await file(name)
    reply
      .header('etag', page.etag)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', ATLAS_CSP)
    if (matchesIfNoneMatch(request.headers['if-none-match'], page.etag)) return reply.code(304).send()
    return reply.type(page.type).send(page.body)
  }

  app.get('/atlas', { schema }, (request, reply) => send(request, reply, 'index.html'))
  app.get<{ Params: { name: string } }>('/atlas/:name', { schema }, (request, reply) => {
    const { name } = request.params
    if (!Object.hasOwn(FILES, name) || name === 'index.html') return reply.callNotFound()
    return send(request, reply, name)
  })
}
