import { Envelope, errorResponses, NoContent, ok, type RoutePlugin } from '@genesis/common'
import {
  AddressCollectionsQuery,
  AddressParams,
  Collection,
  CollectionListQuery,
  CollectionPage,
  CollectionParams,
  CollectionWrite,
} from '@genesis/wire/collections'
import type { FastifyReply } from 'fastify'
import type { Context } from '../context.js'
import {
  type CollectionFields,
  type CollectionFilter,
  findCollection,
  listCollections,
} from '../db/collections.js'
import { noteSearch } from '../db/term-counts.js'
import { seesFullView } from '../domain/access.js'
import { refreshApproval } from '../domain/chain-approval.js'
import { rolesOn } from '../domain/guards.js'
import { removeCollection } from '../domain/lifecycle.js'
import { confirmStoredManager } from '../domain/third-party-managers.js'
import { fullView, publicView } from '../domain/views.js'
import { writeCollection } from '../domain/write-collection.js'
import { collectionNotFound, notAllowed } from '../errors.js'
import { sendCachedAnswer } from './cached-answer.js'
import { cursorPaged, type ListRequestPage, listRequestPage } from './list-page.js'

/** What both lists' queries have: the publication and review filters and the page. */
type ListFields = Pick<
  AddressCollectionsQuery,
  'is_published' | 'is_approved' | 'reviewed' | 'pending_review' | 'page' | 'limit' | 'cursor'
>

/** The review filters of a list query, as the list's filter. */
const reviewFilter = (query: ListFields) => ({
  isApproved: query.is_approved,
  reviewed: query.reviewed,
  pendingReview: query.pending_review,
})

/** A full view shows an active lock, which expires with the clock: such a page is built for every request. */
const unlocked = (rows: readonly CollectionFields[]) => rows.every((row) => row.lock === null)

export const collectionRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  /** The full view for every row of one answer, at one clock reading (not one per row). */
  const fullViews = () => {
    const now = ctx.now()
    return (row: CollectionFields) => fullView(row, ctx.config.LOCK_TTL_S, now)
  }

  /**
   * A page of a collection list, from the answer cache under `scope` and the query's fields: the listed
   * rows (their approval asked again first with RPC_URL), in the full view or the public one. A page of
   * full views is reused only while none of its rows is locked.
   */
  const sendCollectionPage = (
    reply: FastifyReply,
    scope: unknown[],
    query: ListFields,
    page: ListRequestPage,
    filter: Pick<CollectionFilter, 'q' | 'member' | 'isPublished'>,
    full: boolean,
  ) => {
    const { is_published, is_approved, reviewed, pending_review, limit, cursor } = query
    const key = JSON.stringify([
      ...scope,
      is_published,
      is_approved,
      reviewed,
      pending_review,
      query.page,
      limit,
      cursor,
    ])
    return sendCachedAnswer<CollectionPage>(ctx, reply, key, async () => {
      const listed = await listCollections(ctx.sql, { ...filter, ...reviewFilter(query) }, page.page)
      if (ctx.chain) await refreshApproval(ctx, listed.rows)
      return {
        answer: cursorPaged(listed.rows.map(full ? fullViews() : publicView), page, listed),
        reusable: !full || unlocked(listed.rows),
      }
    })
  }

  app.get(
    '/collections',
    {
      config: { auth: 'signed' },
      schema: {
        summary:
          'List collections: every one for the committee, published ones (public view) for anybody else',
        tags: ['collections'],
        querystring: CollectionListQuery,
        response: { 200: CollectionPage, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const query = request.query
      const page = listRequestPage(query)
      const committee = ctx.committee.has(request.signer!)
      if (!committee && query.is_published === false) {
        return cursorPaged([], page, { total: 0, last: null })
      }
      const filter = { q: query.q, isPublished: committee ? query.is_published : true }
      if (query.q !== undefined) noteSearch(query.q, request.ip)
      return sendCollectionPage(reply, ['list', committee, query.q], query, page, filter, committee)
    },
  )

  app.get(
    '/:address/collections',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Collections an address owns, manages or mints for (that address or the committee only)',
        tags: ['collections'],
        params: AddressParams,
        querystring: AddressCollectionsQuery,
        response: { 200: CollectionPage, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const address = request.params.address.toLowerCase()
      const caller = request.signer!
      if (caller !== address && !ctx.committee.has(caller)) {
        throw notAllowed('that address or a committee member', "list an address's collections")
      }
      // with RPC_URL, the third parties recorded as managed by the address are asked again first
      if (ctx.chain) await confirmStoredManager(ctx, ctx.sql, address)
      const query = request.query
      const page = listRequestPage(query)
      const filter = { member: address, isPublished: query.is_published }
      return sendCollectionPage(reply, ['member', address], query, page, filter, true)
    },
  )

  app.get(
    '/collections/:id',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'One collection: full view for its owner, managers, minters and the committee',
        tags: ['collections'],
        params: CollectionParams,
        response: { 200: Envelope(Collection), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await findCollection(ctx.sql, request.params.id)
      if (!row) throw collectionNotFound(request.params.id)
      if (ctx.chain) await refreshApproval(ctx, [row])
      if (seesFullView(await rolesOn(ctx, ctx.sql, request.signer!, row, 'see')))
        return ok(fullView(row, ctx.config.LOCK_TTL_S, ctx.now()))
      if (row.is_published) return ok(publicView(row))
      // Unpublished collections of others do not exist for the caller.
      throw collectionNotFound(request.params.id)
    },
  )

  app.put(
    '/collections/:id',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Create (the signer becomes the owner) or update a collection',
        tags: ['collections'],
        params: CollectionParams,
        body: CollectionWrite,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 409, 423) },
      },
    },
    async (request, reply) => {
      await writeCollection(ctx, request.signer!, request.params.id, request.body)
      return reply.status(204).send(null)
    },
  )

  app.delete(
    '/collections/:id',
    {
      config: { auth: 'signed' },
      schema: {
        summary: 'Delete a collection and its items (owner or manager; not published, not locked)',
        tags: ['collections'],
        params: CollectionParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 423) },
      },
    },
    async (request, reply) => {
      await removeCollection(ctx, request.signer!, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
