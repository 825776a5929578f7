import { errorResponses, NoContent, paged, type RoutePlugin } from '@genesis/common'
import { CollectionParams, ItemParams, ItemsPage, ItemsQuery, ItemWrite } from '@genesis/wire/collections'
import type { Context } from '../context.js'
import { findCollection } from '../db/collections.js'
import { hasDraftItems, itemsPage } from '../db/items.js'
import { canEdit, seesFullView } from '../domain/access.js'
import { rolesOn } from '../domain/guards.js'
import { removeItem, writeItem } from '../domain/items.js'
import { itemView } from '../domain/views.js'
import { collectionNotFound } from '../errors.js'

export const itemRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/collections/:id/items',
    {
      // A page is bounded (1,000 items at most, of a collection's 5,000), and its answer built per request:
      // it takes its turn with the other heavy answers.
      config: { auth: 'signed', heavy: true },
      schema: {
        summary:
          "A collection's items in creation order, a page at a time (same visibility as the collection; a third party's drafts to its editors only)",
        tags: ['items'],
        params: CollectionParams,
        querystring: ItemsQuery,
        response: { 200: ItemsPage, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request) => {
      const row = await findCollection(ctx.sql, request.params.id)
      if (!row) throw collectionNotFound(request.params.id)
      // A third party's items that were never sent to review are drafts: its owner's and managers' alone.
      // The committee reviews what was sent (approval data), so it does not need them either.
      const drafts = row.third_party_id !== null && (await hasDraftItems(ctx.sql, row.id))
      const who = await rolesOn(ctx, ctx.sql, request.signer!, row, drafts ? 'edit' : 'see')
      if (!row.is_published && !seesFullView(who)) throw collectionNotFound(request.params.id)
      const { page, limit } = request.query
      const { items, total } = await itemsPage(ctx.sql, row.id, {
        offset: (page - 1) * limit,
        limit,
        drafts: !drafts || canEdit(who),
      })
      return paged(items.map(itemView), { page, limit, total })
    },
  )

  app.put(
    '/items/:id',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Create or update an item of a collection (owner or manager of the collection)',
        tags: ['items'],
        params: ItemParams,
        body: ItemWrite,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 423) },
      },
    },
    async (request, reply) => {
      await writeItem(ctx, request.signer!, request.params.id, request.body)
      return reply.status(204).send(null)
    },
  )

  app.delete(
    '/items/:id',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Delete an item (owner or manager of its collection)',
        tags: ['items'],
        params: ItemParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 423) },
      },
    },
    async (request, reply) => {
      await removeItem(ctx, request.signer!, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
