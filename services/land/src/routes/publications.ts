import { errorResponses, type RoutePlugin } from '@genesis/common'
import { PublicationEnvelope, TxHashParams } from '@genesis/wire/land'
import type { Context } from '../context.js'
import { publicationByTxHash } from '../db/publications.js'
import { publicationNotFound } from '../errors.js'
import { sendData } from './send.js'

export const publicationRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { sql } = ctx
  app.get(
    '/publications/:txHash',
    {
      schema: {
        summary: 'The publication with this transaction hash',
        tags: ['publications'],
        params: TxHashParams,
        response: { 200: PublicationEnvelope, ...errorResponses(400, 404, 503) },
      },
    },
    async (request, reply) => {
      const publication = await publicationByTxHash(sql, request.params.txHash)
      if (!publication) throw publicationNotFound(request.params.txHash)
      return sendData(reply, publication)
    },
  )
}
