import { Envelope, errorResponses, NoContent, offsetOf, ok, paged, type RoutePlugin } from '@genesis/common'
import {
  CollectionParams,
  Curation,
  CurationPage,
  CurationParams,
  DecisionBody,
  ForumBody,
  PendingCurationsQuery,
} from '@genesis/wire/collections'
import { Type } from '@sinclair/typebox'
import type { Context } from '../context.js'
import { listPendingCurations } from '../db/reviews.js'
import { decideReview, requestReview, reviewsOf, setForumThread } from '../domain/review.js'
import { notAllowed } from '../errors.js'
import { sendCachedAnswer } from './cached-answer.js'

/** The committee's review: curation records, decisions and the forum thread. */
export const reviewRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.post(
    '/collections/:id/curations',
    {
      config: { auth: 'signed' },
      schema: {
        summary:
          "Ask the committee to review a published collection (or a third party's items waiting for approval)",
        tags: ['curation'],
        params: CollectionParams,
        response: { 201: Envelope(Curation), ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(ok(await requestReview(ctx, request.signer!, request.params.id))),
  )

  app.get(
    '/collections/:id/curations',
    {
      config: { auth: 'signed' },
      schema: {
        summary: "A collection's reviews, newest first (owner, managers, minters, committee)",
        tags: ['curation'],
        params: CollectionParams,
        response: { 200: Envelope(Type.Array(Curation)), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ok(await reviewsOf(ctx, request.signer!, request.params.id)),
  )

  app.get(
    '/curations',
    {
      config: { auth: 'signed' },
      schema: {
        summary: "The committee's queue: pending reviews, oldest first, searchable by collection name",
        tags: ['curation'],
        querystring: PendingCurationsQuery,
        response: { 200: CurationPage, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      if (!ctx.committee.has(request.signer!)) throw notAllowed('committee members', 'list pending reviews')
      const { q, page, limit } = request.query
      return sendCachedAnswer<CurationPage>(
        ctx,
        reply,
        JSON.stringify(['queue', q, page, limit]),
        async () => {
          const { rows, total } = await listPendingCurations(
            ctx.sql,
            { q },
            { limit, offset: offsetOf(request.query) },
          )
          return { answer: paged(rows, { page, limit, total }), reusable: true }
        },
      )
    },
  )

  for (const [action, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.post(
      `/curations/:id/${action}`,
      {
        config: { auth: 'signed' },
        schema: {
          summary: `${action === 'approve' ? 'Approve' : 'Reject'} a pending review, with an optional comment (committee only)`,
          tags: ['curation'],
          params: CurationParams,
          body: DecisionBody,
          response: { 200: Envelope(Curation), ...errorResponses(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request) =>
        ok(await decideReview(ctx, request.signer!, request.params.id, decision, request.body.comment)),
    )
  }

  app.put(
    '/collections/:id/forum',
    {
      config: { auth: 'signed' },
      schema: {
        summary:
          "Set the review's forum thread: once by the owner or a manager, at any time by the committee",
        tags: ['curation'],
        params: CollectionParams,
        body: ForumBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await setForumThread(ctx, request.signer!, request.params.id, request.body)
      return reply.status(204).send(null)
    },
  )
}
