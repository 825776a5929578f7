import { errorResponses, type RoutePlugin } from '@genesis/common'
import { DistrictsEnvelope } from '@genesis/wire/land'
import type { Context } from '../context.js'
import { SELF_ENCODED, sendCached } from './send.js'

export const districtRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { grid } = ctx
  app.get(
    '/districts',
    {
      ...SELF_ENCODED,
      schema: {
        summary: 'Every district, with its parcel count and centre',
        tags: ['districts'],
        response: { 200: DistrictsEnvelope, ...errorResponses(503) },
      },
    },
    (request, reply) => {
      sendCached(request, reply, grid.current().districts())
    },
  )
}
