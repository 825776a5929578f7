import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NotFoundError } from '@genesis/common'
import { publicationByTxHash } from '../db/publications.js'
import { TxHashParams } from '../schemas/queries.js'
import { PublicationEnvelope } from '../schemas/resources.js'
import type { LandRouteOptions } from './options.js'
import { NO_BODY, sendData } from './send.js'

export const publicationRoutes: FastifyPluginAsyncTypebox<LandRouteOptions> = async (app, { sql }) => {
  app.get(
    '/publications/:txHash',
    {
      ...NO_BODY,
      schema: {
        summary: 'The publication with this transaction hash',
        tags: ['publications'],
        params: TxHashParams,
        response: { 200: PublicationEnvelope },
      },
    },
    async (request, reply) => {
      const publication = await publicationByTxHash(sql, request.params.txHash)
      if (!publication)
        throw new NotFoundError(`No publication with transaction hash ${request.params.txHash}`)
      return sendData(reply, publication)
    },
  )
}
