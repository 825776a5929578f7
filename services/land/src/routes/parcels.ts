import { errorResponses, type RoutePlugin } from '@genesis/common'
import type { Context } from '../context.js'
import { listAssetIds } from '../db/listings.js'
import { publicationsOfParcel } from '../db/publications.js'
import { parcelsFromDatabase } from '../grid/hydrate.js'
import { ListQuery, ParcelParams, ParcelPublicationsQuery } from '../schemas/queries.js'
import { ParcelEnvelope, ParcelListEnvelope, PublicationsEnvelope } from '../schemas/resources.js'
import { NO_BODY, SELF_ENCODED, sendData, sendJson } from './send.js'

export const parcelRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { sql, grid } = ctx
  app.get(
    '/parcels',
    {
      ...NO_BODY,
      schema: {
        summary: 'Parcels with a publication in a status, sorted and paginated',
        tags: ['parcels'],
        querystring: ListQuery,
        response: { 200: ParcelListEnvelope, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const view = grid.current()
      const now = Date.now()
      const { ids, total } = await listAssetIds(sql, 'parcel', request.query, now)
      const parcels = await parcelsFromDatabase(sql, view, ids, now)
      return sendData(reply, { parcels, total })
    },
  )

  // The hottest read: served from the index, serialised once per parcel and data version.
  app.get(
    '/parcels/:x/:y',
    {
      ...SELF_ENCODED,
      schema: {
        summary: 'The parcel at x,y',
        tags: ['parcels'],
        params: ParcelParams,
        response: { 200: ParcelEnvelope, ...errorResponses(400, 503) },
      },
    },
    (request, reply) => {
      sendJson(reply, grid.current().parcelEnvelope(request.params.x, request.params.y))
    },
  )

  app.get(
    '/parcels/:x/:y/publications',
    {
      ...NO_BODY,
      schema: {
        summary: "The parcel's publications, newest first",
        tags: ['parcels', 'publications'],
        params: ParcelParams,
        querystring: ParcelPublicationsQuery,
        response: { 200: PublicationsEnvelope, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const { x, y } = request.params
      return sendData(reply, await publicationsOfParcel(sql, `${x},${y}`, request.query.status, Date.now()))
    },
  )
}
