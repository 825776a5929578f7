import { errorResponses, type RoutePlugin } from '@genesis/common'
import { EstateListEnvelope, ListQuery } from '@genesis/wire/land'
import type { Context } from '../context.js'
import { listAssetIds } from '../db/listings.js'
import { estatesFromDatabase } from '../grid/hydrate.js'
import { sendData } from './send.js'

export const estateRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { sql } = ctx
  app.get(
    '/estates',
    {
      schema: {
        summary: 'Estates with a publication in a status, sorted and paginated',
        tags: ['estates'],
        querystring: ListQuery,
        response: { 200: EstateListEnvelope, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const now = Date.now()
      const { ids, total } = await listAssetIds(sql, 'estate', request.query, now)
      return sendData(reply, { estates: await estatesFromDatabase(sql, ids, now), total })
    },
  )
}
