import { type App, PagedEnvelope, paged } from '@genesis/common'
import { Type } from '@sinclair/typebox'
import type { ServiceContext } from '../context.js'
import { listContractAddresses } from '../db/collections.js'
import { AddressesQuery } from '../schemas/collection.js'
import { refusals } from './responses.js'

export function registerAddressRoutes(app: App, ctx: ServiceContext) {
  app.get(
    '/v1/addresses',
    {
      schema: {
        summary: 'Contract addresses of standard collections (no authentication; cached 5 minutes)',
        tags: ['collections'],
        querystring: AddressesQuery,
        response: {
          200: PagedEnvelope(Type.String({ description: 'contract address, lower-case' })),
          ...refusals(400),
        },
      },
    },
    async (request, reply) => {
      const query = request.query
      const { addresses, total } = await listContractAddresses(
        ctx.sql,
        { q: query.q, isPublished: query.is_published },
        { limit: query.limit, offset: (query.page - 1) * query.limit },
      )
      reply.header('cache-control', 'public, max-age=300')
      return paged(addresses, { page: query.page, limit: query.limit, total })
    },
  )
}
