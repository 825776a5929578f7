import { Envelope, errorResponses, type RoutePlugin } from '@genesis/common'
import { Type } from '@sinclair/typebox'
import type { Context } from '../../context.js'
import { contributionsOf } from '../../db/contributions.js'
import { districtNotFound } from '../../errors.js'
import { NotModified } from '../../schemas/atlas.js'
import { AddressParams } from '../../schemas/queries.js'
import { ContributionsEnvelope, District, DistrictsEnvelope } from '../../schemas/resources.js'
import { NO_BODY, SELF_ENCODED, sendCached, sendJson } from '../send.js'
import { digest, notModified } from '../validators.js'

const tags = ['atlas', 'districts']

/** The districts and contributions, the same data as the unversioned routes, with validators. */
export const atlasDistrictRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { atlas: atlasIndex, sql } = ctx
  app.get(
    '/districts',
    {
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: 'Every district, with its parcel count and centre',
        response: { 200: DistrictsEnvelope, 304: NotModified, ...errorResponses(503) },
      },
    },
    async (request, reply) => {
      const atlas = await atlasIndex.current()
      if (
        notModified(request, reply, {
          etag: `W/"${atlas.version}.districts"`,
          lastModified: atlas.lastModified,
        })
      ) {
        return reply.code(304).send(null)
      }
      sendCached(request, reply, atlas.grid.districts())
      return reply
    },
  )

  app.get(
    '/districts/:id',
    {
      ...NO_BODY,
      schema: {
        tags,
        summary: 'One district, as /v2/districts lists it',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 200: Envelope(District), 304: NotModified, ...errorResponses(404, 503) },
      },
    },
    async (request, reply) => {
      const atlas = await atlasIndex.current()
      const id = request.params.id.toLowerCase()
      const district = atlas.grid.data.districts.find((d) => d.id === id)
      if (!district) throw districtNotFound(request.params.id)
      const etag = `W/"${atlas.version}.district.${digest(id)}"`
      if (notModified(request, reply, { etag, lastModified: atlas.lastModified }))
        return reply.code(304).send(null)
      return sendJson(reply, `{"ok":true,"data":${JSON.stringify(district)}}`)
    },
  )

  app.get(
    '/addresses/:address/contributions',
    {
      ...NO_BODY,
      schema: {
        tags,
        summary: 'LAND the address contributed to districts',
        params: AddressParams,
        response: { 200: ContributionsEnvelope, 304: NotModified, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const contributions = await contributionsOf(sql, request.params.address.toLowerCase())
      const json = `{"ok":true,"data":${JSON.stringify(contributions)}}`
      // Contributions live in the database, not in the grid: the answer itself is the version.
      if (notModified(request, reply, { etag: `W/"${digest(json)}"` })) return reply.code(304).send(null)
      return sendJson(reply, json)
    },
  )
}
