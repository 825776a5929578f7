import { type App, Envelope, ok } from '@genesis/common'
import { Type } from '@sinclair/typebox'
import { roles } from '../actions/guards.js'
import { removeItem, writeItem } from '../actions/items.js'
import { collectionNotFound } from '../actions/refusals.js'
import type { ServiceContext } from '../context.js'
import { findCollection } from '../db/collections.js'
import { listItems } from '../db/items.js'
import { seesFullView } from '../domain/access.js'
import { CollectionParams } from '../schemas/collection.js'
import { Item, ItemParams, ItemWrite } from '../schemas/item.js'
import { itemView } from '../views.js'
import { NoContent, refusals } from './responses.js'

export function registerItemRoutes(app: App, ctx: ServiceContext) {
  app.get(
    '/v1/collections/:id/items',
    {
      config: { auth: 'signed' },
      schema: {
        summary: "A collection's items in creation order (same visibility as the collection)",
        tags: ['items'],
        params: CollectionParams,
        response: { 200: Envelope(Type.Array(Item)), ...refusals(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await findCollection(ctx.sql, request.params.id)
      if (!row || !(row.is_published || seesFullView(roles(ctx, request.signer!, row)))) {
        throw collectionNotFound(request.params.id)
      }
      return ok((await listItems(ctx.sql, row.id)).map(itemView))
    },
  )

  app.put(
    '/v1/items/:id',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Create or update an item of a collection (owner or manager of the collection)',
        tags: ['items'],
        params: ItemParams,
        body: ItemWrite,
        response: { 204: NoContent, ...refusals(400, 401, 403, 404, 409, 423) },
      },
    },
    async (request, reply) => {
      await writeItem(ctx, request.signer!, request.params.id, request.body)
      return reply.status(204).send(null)
    },
  )

  app.delete(
    '/v1/items/:id',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Delete an item (owner or manager of its collection)',
        tags: ['items'],
        params: ItemParams,
        response: { 204: NoContent, ...refusals(400, 401, 403, 404, 409, 423) },
      },
    },
    async (request, reply) => {
      await removeItem(ctx, request.signer!, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
