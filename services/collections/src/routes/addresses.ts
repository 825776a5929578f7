import { errorResponses, offsetOf, PagedEnvelope, paged, type RoutePlugin } from '@genesis/common'
import { AddressesQuery } from '@genesis/wire/collections'
import { Type } from '@sinclair/typebox'
import type { Context } from '../context.js'
import { listContractAddresses } from '../db/collections.js'
import { noteSearch } from '../db/term-counts.js'

export const addressRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/addresses',
    {
      schema: {
        summary: 'Contract addresses of published standard collections (no authentication; cached 5 minutes)',
        description:
          'Unauthenticated: published collections only. `is_published=false` answers an empty page; `q` searches published names only.',
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
      reply.header('cache-control', 'public, max-age=300')
      // Nobody is known here, so nothing unpublished is shown or searched: `is_published=false` selects
      // none of what an unauthenticated caller may see, an empty page as on the signed list.
      if (!query.is_published) return paged([], { page: query.page, limit: query.limit, total: 0 })
      if (query.q !== undefined) noteSearch(query.q, request.ip)
      const { addresses, total } = await listContractAddresses(
        ctx.sql,
        { q: query.q, isPublished: true },
        { limit: query.limit, offset: offsetOf(query) },
      )
      return paged(addresses, { page: query.page, limit: query.limit, total })
    },
  )
}
