import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { DistrictsEnvelope } from '../schemas/resources.js'
import type { LandRouteOptions } from './options.js'
import { SELF_ENCODED, sendCached } from './send.js'

export const districtRoutes: FastifyPluginAsyncTypebox<LandRouteOptions> = async (app, { grid }) => {
  app.get(
    '/districts',
    {
      ...SELF_ENCODED,
      schema: {
        summary: 'Every district, with its parcel count and centre',
        tags: ['districts'],
        response: { 200: DistrictsEnvelope },
      },
    },
    (request, reply) => {
      sendCached(request, reply, grid.current().districts())
    },
  )
}
