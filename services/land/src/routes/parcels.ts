import { errorResponses, type RoutePlugin } from '@genesis/common'
import {
  ListQuery,
  ParcelEnvelope,
  ParcelListEnvelope,
  ParcelParams,
  ParcelPublicationsQuery,
  PublicationsEnvelope,
} from '@genesis/wire/land'
import type { Context } from '../context.js'
import { listAssetIds } from '../db/listings.js'
import { publicationsOfParcel } from '../db/publications.js'
import { parcelsFromDatabase } from '../grid/hydrate.js'
import { SELF_ENCODED, sendData, sendJson } from './send.js'

export const parcelRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { sql, grid } = ctx
  app.get(
    '/parcels',
    {
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
