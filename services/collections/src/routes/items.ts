import { Envelope, errorResponses, NoContent, ok, type RoutePlugin } from '@genesis/common'
import { Type } from '@sinclair/typebox'
import type { Context } from '../context.js'
import { findCollection } from '../db/collections.js'
import { type ItemRow, listItems } from '../db/items.js'
import { canEdit, seesFullView } from '../domain/access.js'
import { rolesOn } from '../domain/guards.js'
import { removeItem, writeItem } from '../domain/items.js'
import { itemView } from '../domain/views.js'
import { collectionNotFound } from '../errors.js'
import { CollectionParams } from '../schemas/collection.js'
import { Item, ItemParams, ItemWrite } from '../schemas/item.js'

/** Not sent to review (a third party's item before publication, or given back by a rejection). */
const isDraft = (item: ItemRow) => item.submitted_content_hash === null

export const itemRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/collections/:id/items',
    {
      config: { auth: 'signed' },
      schema: {
        summary:
          "A collection's items in creation order (same visibility as the collection; a third party's drafts to its editors only)",
        tags: ['items'],
        params: CollectionParams,
        response: { 200: Envelope(Type.Array(Item)), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await findCollection(ctx.sql, request.params.id)
      if (!row) throw collectionNotFound(request.params.id)
      const items = await listItems(ctx.sql, row.id)
      // A third party's items that were never sent to review are drafts: its owner's and managers' alone.
      // The committee reviews what was sent (approval data), so it does not need them either.
      const drafts = row.third_party_id !== null && items.some(isDraft)
      const who = await rolesOn(ctx, ctx.sql, request.signer!, row, drafts ? 'edit' : 'see')
      if (!row.is_published && !seesFullView(who)) throw collectionNotFound(request.params.id)
      const shown = drafts && !canEdit(who) ? items.filter((item) => !isDraft(item)) : items
      return ok(shown.map(itemView))
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
