import { errorResponses, type RoutePlugin } from '@genesis/common'
import {
  EstateImageParams,
  IMAGE_DEFAULTS,
  ImageQuery,
  MapImageQuery,
  ParcelImageParams,
  PngResponse,
} from '@genesis/wire/land'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../context.js'
import { parseCoordinate, parseCoordinateList } from '../domain/coordinates.js'
import { estateCentre } from '../domain/geometry.js'
import { estateEmpty, estateNotFound } from '../errors.js'
import type { MapImageRequest } from '../render/draw.js'
import { matchesIfNoneMatch } from '../render/etag.js'
import { normaliseSelection } from '../render/image-renderer.js'
import { answerPng } from './png.js'
import { SELF_ENCODED } from './send.js'

/**
 * Clients and proxies may reuse an image for a minute without asking; after that a revalidation with
 * If-None-Match costs a hash, not a render.
 */
export const MAP_IMAGE_CACHE_CONTROL = 'public, max-age=60'

const tags = ['map']

/** The query's image fields; the schema fills the defaults in, the fallbacks only satisfy the types. */
const imageOptions = (query: ImageQuery) => ({
  width: query.width ?? IMAGE_DEFAULTS.width,
  height: query.height ?? IMAGE_DEFAULTS.height,
  size: query.size ?? IMAGE_DEFAULTS.size,
  publications: query.publications ?? IMAGE_DEFAULTS.publications,
})

/** The PNG maps; they need only a map to draw and the renderer (a test hands in a map of its own). */
export const mapImageRoutes: RoutePlugin<Pick<Context, 'map' | 'images'>> = async (app, { ctx }) => {
  const { map: grid, images: renderer } = ctx

  const answer = (request: FastifyRequest, reply: FastifyReply, image: MapImageRequest, subject?: string) =>
    answerPng(ctx, request, reply, image, {
      ...(subject === undefined ? {} : { subject }),
      tooManyParcelsStatus: 500,
      cacheControl: MAP_IMAGE_CACHE_CONTROL,
      rememberUrl: true,
    })

  // A URL answered before under the same data version is answered again before parsing and validation.
  // Callback style: a hit answers without a promise, a miss goes on at once (the hook not calling `done`
  // after sending is how Fastify ends a request in a hook).
  app.addHook('onRequest', (request, reply, done) => {
    const hit = renderer.answered(request.url, grid.snapshot().version)
    if (hit === undefined) return done()
    reply.header('etag', hit.etag).header('cache-control', MAP_IMAGE_CACHE_CONTROL)
    if (matchesIfNoneMatch(request.headers['if-none-match'], hit.etag)) reply.code(304).send()
    else reply.type('image/png').send(hit.png)
  })

  app.get(
    '/map.png',
    {
      // PNG is compressed already: the kit's compression would only look at it and pass.
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: 'A PNG of the map around a centre, with optional selected parcels',
        querystring: MapImageQuery,
        response: { 200: PngResponse, ...errorResponses(400, 500, 503) },
      },
    },
    async (request, reply) => {
      const { center = IMAGE_DEFAULTS.center, selected } = request.query
      return answer(request, reply, {
        ...imageOptions(request.query),
        center: parseCoordinate(center, 'center'),
        selected: normaliseSelection(selected ? parseCoordinateList(selected, 'selected') : []),
      })
    },
  )

  app.get(
    '/parcels/:x/:y/map.png',
    {
      // PNG is compressed already: the kit's compression would only look at it and pass.
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: 'A PNG of the map centred on a parcel, the parcel drawn as selected',
        params: ParcelImageParams,
        querystring: ImageQuery,
        response: { 200: PngResponse, ...errorResponses(400, 500, 503) },
      },
    },
    async (request, reply) => {
      const { x, y } = request.params
      return answer(request, reply, {
        ...imageOptions(request.query),
        center: { x, y },
        selected: [{ x, y }],
      })
    },
  )

  app.get(
    '/estates/:id/map.png',
    {
      // PNG is compressed already: the kit's compression would only look at it and pass.
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: 'A PNG of the map centred on an estate, its parcels drawn as selected',
        params: EstateImageParams,
        querystring: ImageQuery,
        response: { 200: PngResponse, ...errorResponses(400, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const parcels = grid.estateParcels(id)
      if (parcels === undefined) throw estateNotFound(id)
      if (parcels.length === 0) throw estateEmpty(id)
      const center = estateCentre(parcels)
      return answer(
        request,
        reply,
        { ...imageOptions(request.query), center, selected: parcels },
        `estate:${id}`,
      )
    },
  )
}
