import { errorResponses, type RoutePlugin } from '@genesis/common'
import {
  AtlasImageQuery,
  AtlasMapImageQuery,
  MetadataEstateParams,
  MetadataParcelParams,
  NotModified,
  PngResponse,
} from '@genesis/wire/land'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../context.js'
import { parseCoordinate, parseCoordinateList } from '../../domain/coordinates.js'
import { estateCentre, GRID_MAX, GRID_MIN } from '../../domain/geometry.js'
import { estateNotFound, parcelNotFound } from '../../errors.js'
import type { MapImageRequest } from '../../render/draw.js'
import { normaliseSelection } from '../../render/image-renderer.js'
import { fitPixelBudget } from '../../render/viewport.js'
import { answerPng } from '../png.js'
import { SELF_ENCODED } from '../send.js'
import { ATLAS_CACHE_CONTROL } from '../validators.js'

const tags = ['atlas', 'map']

/** atlas-server's reading of an integer parameter: parseInt, the default when that is not a number, then clamped. */
export function clampedInteger(
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const parsed = value === undefined ? Number.NaN : Number.parseInt(value, 10)
  return Math.max(min, Math.min(max, Number.isNaN(parsed) ? fallback : parsed))
}

/**
 * Width, height, size and on-sale as atlas-server reads them (its defaults and bounds), then width and
 * height scaled down together to the pixel budget (README "Capacity"): 4096 × 4096 is drawn 2048 × 2048.
 */
export function atlasImageOptions(query: AtlasImageQuery) {
  return {
    ...fitPixelBudget(
      clampedInteger(query.width, 1024, 100, 4096),
      clampedInteger(query.height, 1024, 100, 4096),
    ),
    size: clampedInteger(query.size, 20, 5, 50),
    publications: query['on-sale'] === 'true',
    atlasPlacement: true,
  }
}

const inGrid = (n: number) => n >= GRID_MIN && n <= GRID_MAX

/** The PNG maps with atlas-server's parameters, drawn by land's renderer (and cached by it). */
export const atlasImageRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { map, atlas } = ctx

  const answer = (request: FastifyRequest, reply: FastifyReply, image: MapImageRequest, subject?: string) =>
    answerPng(ctx, request, reply, image, {
      ...(subject === undefined ? {} : { subject }),
      tooManyParcelsStatus: 400,
      cacheControl: ATLAS_CACHE_CONTROL,
      lastModified: async () => (await atlas.current()).lastModified,
    })

  const response = { 200: PngResponse, 304: NotModified, ...errorResponses(400, 404, 503) }

  app.get(
    '/map.png',
    {
      // PNG is compressed already: the kit's compression would only look at it and pass.
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: 'A PNG of the map (atlas-server parameters: width, height, size, center, selected, on-sale)',
        querystring: AtlasMapImageQuery,
        response,
      },
    },
    (request, reply) => {
      const { center, selected } = request.query
      return answer(request, reply, {
        ...atlasImageOptions(request.query),
        center: center === undefined ? { x: 0, y: 0 } : parseCoordinate(center, 'center'),
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
        summary: 'A PNG of the map centred on a parcel, drawn selected (atlas-server parameters)',
        params: MetadataParcelParams,
        querystring: AtlasImageQuery,
        response,
      },
    },
    (request, reply) => {
      const { x, y } = request.params
      if (!inGrid(x) || !inGrid(y)) throw parcelNotFound(x, y)
      return answer(request, reply, {
        ...atlasImageOptions(request.query),
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
        summary:
          'A PNG of the map centred on an estate, its parcels drawn selected (atlas-server parameters)',
        params: MetadataEstateParams,
        querystring: AtlasImageQuery,
        response,
      },
    },
    (request, reply) => {
      const id = BigInt(request.params.id).toString()
      const parcels = map.estateParcels(id)
      if (parcels === undefined) throw estateNotFound(id)
      // A dissolved estate still has metadata pointing here: it gets the map at the centre, nothing selected.
      const center = parcels.length === 0 ? { x: 0, y: 0 } : estateCentre(parcels)
      return answer(
        request,
        reply,
        { ...atlasImageOptions(request.query), center, selected: parcels },
        `estate:${id}`,
      )
    },
  )
}
