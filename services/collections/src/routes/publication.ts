import { Envelope, errorResponses, NoContent, ok, type RoutePlugin } from '@genesis/common'
import {
  ApprovalData,
  CollectionParams,
  DateTime,
  MAX_CONTENT_HASH_LENGTH,
  MAX_TOS_HASHES,
  PublishBody,
  TosBody,
} from '@genesis/wire/collections'
import type { Context } from '../context.js'
import { approvalData } from '../domain/approval-data.js'
import { acceptTerms, lockForPublication } from '../domain/lifecycle.js'
import { publishCollection } from '../domain/publish.js'

/**
 * The largest terms body a client sends: MAX_TOS_HASHES of the longest content hash, each with its quotes,
 * comma and a generous indentation, plus the e-mail and event. Larger is 413 before it is parsed.
 */
export const TOS_BODY_LIMIT = MAX_TOS_HASHES * (MAX_CONTENT_HASH_LENGTH + 27) + 16 * 1024

export const publicationRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.post(
    '/collections/:id/lock',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Lock the collection until publication (LOCK_TTL_S); an active lock is kept, not renewed',
        tags: ['publication'],
        params: CollectionParams,
        response: { 200: Envelope(DateTime), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ok((await lockForPublication(ctx, request.signer!, request.params.id)).toISOString()),
  )

  app.post(
    '/collections/:id/tos',
    {
      config: { auth: 'signed' },
      bodyLimit: TOS_BODY_LIMIT,
      schema: {
        summary: 'Record the acceptance of the terms of service for publishing the collection',
        tags: ['publication'],
        params: CollectionParams,
        body: TosBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 413) },
        description: `At most ${MAX_TOS_HASHES} hashes (400 past it); bodies over ${TOS_BODY_LIMIT} bytes are 413.`,
      },
    },
    async (request, reply) => {
      await acceptTerms(ctx, request.signer!, request.params.id, request.body)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/collections/:id/publish',
    {
      config: { auth: 'signed' },
      schema: {
        summary:
          "Publish: a standard collection (owner) or a third-party collection's items (manager, with a cheque)",
        tags: ['publication'],
        params: CollectionParams,
        body: PublishBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      await publishCollection(ctx, request.signer!, request.params.id, request.body)
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/collections/:id/approvalData',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'What the committee needs to approve a third-party collection on chain (committee only)',
        tags: ['publication'],
        params: CollectionParams,
        response: { 200: Envelope(ApprovalData), ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request) => ok(await approvalData(ctx, request.signer!, request.params.id)),
  )
}
