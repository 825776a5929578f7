import { errorResponses, type RoutePlugin } from '@genesis/common'
import { NotModified, PngResponse } from '@genesis/wire/land'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AtlasView } from '../atlas/atlas-view.js'
import type { ParcelView } from '../atlas/parcel-view.js'
import type { Context } from '../context.js'
import { SELF_ENCODED } from './send.js'
import { notModified } from './validators.js'

/** Drawn once per grid version: an hour of a client's cache would show old owners, a minute does not. */
const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300'

/**
 * The explorers' parcel view (ADR-250), at atlas-server's paths under /v1: `minimap.png` and
 * `estatemap.png` (atlas/parcel-view.ts says what each pixel holds), with the grid's validators.
 */
export const parcelViewRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const images: Array<[string, keyof ParcelView, string]> = [
    [
      '/minimap.png',
      'minimap',
      "Each parcel's type and joins, one pixel per parcel (the explorers' minimap)",
    ],
    ['/estatemap.png', 'estatemap', "Each parcel's estate as a 24-bit index, one pixel per parcel"],
  ]
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    image: keyof ParcelView,
    atlas: AtlasView,
    view: ParcelView,
  ) => {
    const validators = {
      etag: `W/"${atlas.version}.${image}"`,
      lastModified: atlas.lastModified,
      cacheControl: CACHE_CONTROL,
    }
    if (notModified(request, reply, validators)) reply.code(304).send()
    else reply.type('image/png').send(view[image])
  }
  for (const [path, image, summary] of images) {
    app.get(
      path,
      {
        // PNG is compressed already: the kit's compression would only look at it and pass.
        ...SELF_ENCODED,
        schema: {
          tags: ['atlas'],
          summary,
          response: { 200: PngResponse, 304: NotModified, ...errorResponses(503) },
        },
      },
      // Synchronous once the atlas is built and its parcel view drawn: a hot read makes no promise.
      (request, reply) =>
        ctx.atlas.withAtlas((atlas) =>
          atlas.withParcelView((view) => answer(request, reply, image, atlas, view)),
        ),
    )
  }
}
