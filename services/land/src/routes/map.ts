import { errorResponses, type RoutePlugin } from '@genesis/common'
import { MapEnvelope, MapQuery } from '@genesis/wire/land'
import { type Context, LARGE_ANSWER_CELLS } from '../context.js'
import { parseCoordinate } from '../domain/coordinates.js'
import { cellsOf } from '../grid/json-rows.js'
import { SELF_ENCODED, sendLarge } from './send.js'

export const mapRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { grid, largeAnswers } = ctx
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
      // One spelling per rectangle (corners in any order): one cache entry.
      const rect = {
        minX: Math.min(nw.x, se.x),
        maxX: Math.max(nw.x, se.x),
        minY: Math.min(nw.y, se.y),
        maxY: Math.max(nw.y, se.y),
      }
      const view = grid.current()
      return sendLarge(request, reply, {
        key: `map:${view.version}:${rect.minX},${rect.minY},${rect.maxX},${rect.maxY}`,
        existing: () => view.existingMapBody(rect),
        build: () => view.mapBody(rect),
        large: cellsOf(rect) > LARGE_ANSWER_CELLS,
        admission: largeAnswers,
      })
    },
  )
}
