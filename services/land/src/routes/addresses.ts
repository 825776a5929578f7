import { errorResponses, type RoutePlugin } from '@genesis/common'
import {
  AddressParams,
  ContributionsEnvelope,
  EstateListEnvelope,
  PagingQuery,
  ParcelListEnvelope,
} from '@genesis/wire/land'
import type { Context } from '../context.js'
import { contributionsOf } from '../db/contributions.js'
import { assetsOwnedBy } from '../db/listings.js'
import { estatesFromDatabase, parcelsFromDatabase } from '../grid/hydrate.js'
import { sendData } from './send.js'

/** The address a route names, as the database keeps owners (lower case). */
const ownerOf = (params: { address: string }) => params.address.toLowerCase()

export const addressRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { sql, grid } = ctx
  app.get(
    '/addresses/:address/contributions',
    {
      schema: {
        summary: 'LAND the address contributed to districts',
        tags: ['addresses', 'districts'],
        params: AddressParams,
        response: { 200: ContributionsEnvelope, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => sendData(reply, await contributionsOf(sql, ownerOf(request.params))),
  )

  app.get(
    '/addresses/:address/parcels',
    {
      schema: {
        summary: 'Parcels the address owns (those inside its estates included), by x then y',
        tags: ['addresses', 'parcels'],
        params: AddressParams,
        querystring: PagingQuery,
        response: { 200: ParcelListEnvelope, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const view = grid.current()
      const now = Date.now()
      const { ids, total } = await assetsOwnedBy(sql, 'parcel', ownerOf(request.params), request.query)
      return sendData(reply, { parcels: await parcelsFromDatabase(sql, view, ids, now), total })
    },
  )

  app.get(
    '/addresses/:address/estates',
    {
      schema: {
        summary: 'Estates the address owns, by id',
        tags: ['addresses', 'estates'],
        params: AddressParams,
        querystring: PagingQuery,
        response: { 200: EstateListEnvelope, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const { ids, total } = await assetsOwnedBy(sql, 'estate', ownerOf(request.params), request.query)
      return sendData(reply, { estates: await estatesFromDatabase(sql, ids, Date.now()), total })
    },
  )
}
