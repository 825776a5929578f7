import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { parseCoordinate } from '@genesis/common'
import { MapQuery } from '../schemas/queries.js'
import { MapEnvelope } from '../schemas/resources.js'
import type { LandRouteOptions } from './options.js'
import { SELF_ENCODED, sendCached } from './send.js'

export const mapRoutes: FastifyPluginAsyncTypebox<LandRouteOptions> = async (app, { grid }) => {
  app.get(
    '/map',
    {
      ...SELF_ENCODED,
      schema: {
        summary: 'Parcels and estates in the rectangle between two corners (inclusive, any corner order)',
        tags: ['map'],
        querystring: MapQuery,
        response: { 200: MapEnvelope },
      },
    },
    (request, reply) => {
      const nw = parseCoordinate(request.query.nw, 'nw')
      const se = parseCoordinate(request.query.se, 'se')
      const rect = {
        minX: Math.min(nw.x, se.x),
        maxX: Math.max(nw.x, se.x),
        minY: Math.min(nw.y, se.y),
        maxY: Math.max(nw.y, se.y),
      }
      sendCached(request, reply, grid.current().mapBody(rect))
    },
  )
}
