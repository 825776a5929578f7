import { errorResponses, type RoutePlugin } from '@genesis/common'
import { LegacyTilesEnvelope, NotModified, TilesEnvelope, TilesInfo, TilesQuery } from '@genesis/wire/land'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { filterCells, type TileShape } from '../../atlas/atlas-view.js'
import { filterKey, parseTileFilter } from '../../atlas/tiles.js'
import { type Context, LARGE_ANSWER_CELLS } from '../../context.js'
import { SELF_ENCODED, sendJson, sendLarge } from '../send.js'
import { digest, notModified } from '../validators.js'

const tags = ['atlas']

async function answerTiles(
  ctx: Pick<Context, 'atlas' | 'largeAnswers'>,
  shape: TileShape,
  query: TilesQuery,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const atlas = await ctx.atlas.current(true)
  // Canonical: every spelling of one answer has one ETag and one cache entry.
  const filter = parseTileFilter(query)
  const whole = filter.rect === undefined && filter.fields === undefined
  const variant = whole ? shape : `${shape}.${digest(filterKey(filter))}`
  const etag = `W/"${atlas.version}.${variant}"`
  if (notModified(request, reply, { etag, lastModified: atlas.lastModified })) {
    return reply.code(304).send()
  }
  return sendLarge(request, reply, {
    key: `tiles:${etag}`,
    existing: () => atlas.existing(shape, filter),
    build: () => atlas.body(shape, filter),
    large: filterCells(filter) > LARGE_ANSWER_CELLS,
    admission: ctx.largeAnswers,
  })
}

/** `/tiles` and `/tiles/info`, atlas-server's shapes; app.ts mounts them under `/v2`. */
export const atlasTileRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/tiles',
    {
      ...SELF_ENCODED,
      schema: {
        tags,
        summary:
          "Every parcel as a map tile (atlas-server's /v2/tiles), optionally a rectangle and some fields",
        querystring: TilesQuery,
        response: { 200: TilesEnvelope, 304: NotModified, ...errorResponses(400, 503) },
      },
    },
    (request, reply) => answerTiles(ctx, 'v2', request.query, request, reply),
  )

  app.get(
    '/tiles/info',
    {
      schema: {
        tags,
        summary: 'When the tiles last changed, for clients that poll before fetching /tiles again',
        response: { 200: TilesInfo, ...errorResponses(503) },
      },
    },
    async (_request, reply) => {
      const { lastModified } = await ctx.atlas.current()
      reply.header('cache-control', 'no-cache')
      return sendJson(reply, JSON.stringify({ lastUpdatedAt: lastModified }))
    },
  )
}

/** `/tiles` in the legacy shape (numeric types) that decentraland-ui's Atlas reads; mounted under `/v1`. */
export const legacyTileRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/tiles',
    {
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: "Every parcel as a legacy map tile (atlas-server's /v1/tiles): numeric types",
        querystring: TilesQuery,
        response: { 200: LegacyTilesEnvelope, 304: NotModified, ...errorResponses(400, 503) },
      },
    },
    (request, reply) => answerTiles(ctx, 'legacy', request.query, request, reply),
  )
}
