import { errorResponses, offsetOf, PagedEnvelope, paged, type RoutePlugin } from '@genesis/common'
import { Type } from '@sinclair/typebox'
import type { Context } from '../context.js'
import { listContractAddresses } from '../db/collections.js'
import { AddressesQuery } from '../schemas/collection.js'

export const addressRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/addresses',
    {
      schema: {
        summary: 'Contract addresses of standard collections (no authentication; cached 5 minutes)',
        tags: ['collections'],
        querystring: AddressesQuery,
        response: {
          200: PagedEnvelope(Type.String({ description: 'contract address, lower-case' })),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const query = request.query
      const { addresses, total } = await listContractAddresses(
        ctx.sql,
        { q: query.q, isPublished: query.is_published },
        { limit: query.limit, offset: offsetOf(query) },
      )
      reply.header('cache-control', 'public, max-age=300')
      return paged(addresses, { page: query.page, limit: query.limit, total })
    },
  )
}
