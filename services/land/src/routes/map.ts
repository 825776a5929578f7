import { errorResponses, type RoutePlugin } from '@genesis/common'
import type { Context } from '../context.js'
import { parseCoordinate } from '../domain/coordinates.js'
import { MapQuery } from '../schemas/queries.js'
import { MapEnvelope } from '../schemas/resources.js'
import { SELF_ENCODED, sendCached } from './send.js'

export const mapRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { grid } = ctx
  app.get(
    '/map',
    {
      ...SELF_ENCODED,
      schema: {
        summary: 'Parcels and estates in the rectangle between two corners (inclusive, any corner order)',
        tags: ['map'],
        querystring: MapQuery,
        response: { 200: MapEnvelope, ...errorResponses(400, 503) },
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
