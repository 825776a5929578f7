import { Envelope, errorResponses, ok, PagedEnvelope, type RoutePlugin } from '@genesis/common'
import { GrantRewardsBody, Reward, UserPageQuery } from '@genesis/wire/claims'
import { Type } from '@sinclair/typebox'
import type { Context } from '../context.js'
import { listRewards, toReward } from '../db/rewards.js'
import { grantRewards } from '../domain/grant-rewards.js'
import { actorOf, authenticate, securityOf } from './caller.js'
import { userPage } from './user-page.js'

const tags = ['rewards']

export const rewardRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { sql } = ctx

  app.get(
    '/rewards',
    {
      config: { auth: 'optional' },
      onRequest: authenticate({ admin: true, user: true }, ctx.admin.token),
      schema: {
        tags,
        security: securityOf({ admin: true, user: true }),
        summary: "The caller's rewards, newest first, each with claimable and its live claim",
        description: 'Signed fetch (your own), or the admin bearer token with ?user=0x….',
        querystring: UserPageQuery,
        response: { 200: PagedEnvelope(Reward), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      userPage(actorOf(request), request.query, (user, page) => listRewards(sql, user, page), toReward),
  )

  app.post(
    '/rewards',
    {
      // optional: a signed caller who is not the operator gets 403 rather than 401
      config: { auth: 'optional' },
      onRequest: authenticate({ admin: true, user: false }, ctx.admin.token),
      schema: {
        tags,
        security: securityOf({ admin: true, user: false }),
        summary: 'Grant rewards (operator)',
        description:
          'Authorization: Bearer <CLAIMS_ADMIN_TOKEN>. All or nothing. A client-chosen id makes the grant ' +
          'idempotent: the same id with the same content again is a no-op, with other content 409 reward_id_conflict.',
        body: GrantRewardsBody,
        response: { 201: Envelope(Type.Array(Reward)), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const rows = await grantRewards(sql, request.body.rewards, {
        chainAccepted: (chainId) => ctx.config.NODE_ENV !== 'production' || ctx.chains.has(chainId),
      })
      return reply.code(201).send(ok(rows.map(toReward)))
    },
  )
}
