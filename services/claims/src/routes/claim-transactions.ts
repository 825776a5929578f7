import { Envelope, errorResponses, ok, PagedEnvelope, type RoutePlugin } from '@genesis/common'
import {
  ClaimParams,
  ClaimTransaction,
  CreateClaimBody,
  IdempotencyHeaders,
  PatchClaimBody,
  UserPageQuery,
} from '@genesis/wire/claims'
import type { Context } from '../context.js'
import { findClaim, listClaims, toClaimTransaction } from '../db/claim-transactions.js'
import { createClaim } from '../domain/create-claim.js'
import { changeClaim } from '../domain/transitions.js'
import { claimNotFound } from '../errors.js'
import { actorOf, authenticate, securityOf } from './caller.js'
import { userPage } from './user-page.js'

const tags = ['claim-transactions']

/** Set on a create answered from an earlier one with the same Idempotency-Key: the client reports it. */
export const REPLAYED_HEADER = 'idempotent-replayed'
/** A create names at most 100 ids (~4 KB of JSON); room for any spacing, and no more to read or parse. */
const CREATE_BODY_LIMIT = 16 * 1024
/** A report or a status is one short field. */
const PATCH_BODY_LIMIT = 1024

export const claimTransactionRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { sql } = ctx
  const readersPolicy = { admin: true, user: true }
  const readers = authenticate(readersPolicy, ctx.admin.token)

  app.post(
    '/claim-transactions',
    {
      // the create's one write statement records the signature too (one round trip fewer)
      config: { auth: 'signed', replay: 'route' },
      bodyLimit: CREATE_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Create a claim transaction for some of your rewards',
        description:
          'Signed fetch. 1 to 100 distinct reward ids of the caller, same chain and contract, none in a live ' +
          'claim. Answers 201 with the claim: calldata of claim(voucher, signature) signed by the service. ' +
          'With Idempotency-Key, a retry with the same body answers 201 with the same claim ' +
          '(header idempotent-replayed: true); with another body, 409 idempotency_key_reused.',
        headers: IdempotencyHeaders,
        body: CreateClaimBody,
        response: { 201: Envelope(ClaimTransaction), ...errorResponses(400, 401, 409, 413) },
      },
    },
    async (request, reply) => {
      const { claim, replayed } = await createClaim(
        {
          sql,
          signer: ctx.signer,
          ttlS: ctx.config.CLAIM_TTL_S,
          watches: (chainId) => ctx.chains.has(chainId),
          batches: ctx.batches,
        },
        {
          user: request.signer!,
          rewardIds: request.body.rewards,
          idempotencyKey: request.headers['idempotency-key'],
          usedSignature: request.usedSignature ?? undefined,
        },
      )
      if (replayed) reply.header(REPLAYED_HEADER, 'true')
      return reply.code(201).send(ok(toClaimTransaction(claim)))
    },
  )

  app.get(
    '/claim-transactions',
    {
      // a page of 100 claims of 100 rewards is over a megabyte of JSON: one of the kit's heavy answers
      config: { auth: 'optional', heavy: true },
      onRequest: readers,
      schema: {
        tags,
        security: securityOf(readersPolicy),
        summary: "The caller's claims, newest first",
        description: 'Signed fetch (your own), or the admin bearer token with ?user=0x….',
        querystring: UserPageQuery,
        response: { 200: PagedEnvelope(ClaimTransaction), ...errorResponses(400, 401, 403, 503) },
      },
    },
    async (request) =>
      userPage(
        actorOf(request),
        request.query,
        (user, page) => listClaims(sql, user, page),
        toClaimTransaction,
      ),
  )

  app.get(
    '/claim-transactions/:id',
    {
      config: { auth: 'optional' },
      onRequest: readers,
      schema: {
        tags,
        security: securityOf(readersPolicy),
        summary: 'One claim transaction (its owner, or the operator)',
        params: ClaimParams,
        response: { 200: Envelope(ClaimTransaction), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const actor = actorOf(request)
      const claim = await findClaim(sql, request.params.id)
      // somebody else's claim reads as missing, so that its existence does not leak
      if (!claim || (actor.kind === 'user' && claim.user !== actor.address)) {
        throw claimNotFound(request.params.id)
      }
      return ok(toClaimTransaction(claim))
    },
  )

  app.patch(
    '/claim-transactions/:id',
    {
      config: { auth: 'optional' },
      onRequest: readers,
      bodyLimit: PATCH_BODY_LIMIT,
      schema: {
        tags,
        security: securityOf(readersPolicy),
        summary: 'Report the transaction hash (owner) or settle the claim (operator)',
        description:
          'Owner (signed fetch): { transaction_hash } moves a claimed claim to pending (or replaces the hash of ' +
          'a pending one). Operator (admin bearer token): { status: successful | failed }. Moves out of ' +
          'successful or failed are 409 invalid_transition. With the chain watched, failed is 409 voucher_live ' +
          'until the chain shows the voucher expired unredeemed, successful 409 voucher_not_redeemed until it ' +
          'shows it redeemed; without, failed waits for expires_at.',
        params: ClaimParams,
        body: PatchClaimBody,
        response: {
          200: Envelope(ClaimTransaction),
          ...errorResponses(400, 401, 403, 404, 409, 413, 503),
        },
      },
    },
    async (request) => {
      const claim = await changeClaim(ctx, request.params.id, actorOf(request), request.body)
      return ok(toClaimTransaction(claim))
    },
  )
}
