import { createHash } from 'node:crypto'
import { HttpError, replayRefused, type Sql, signatureUsed, type UsedSignature } from '@genesis/common'
import postgres from 'postgres'
import { v7 as timeOrderedUuid } from 'uuid'
import type { VoucherSigner } from '../chain/voucher.js'
import { type ClaimRow, findClaim } from '../db/claim-transactions.js'
import { findIdempotencyKey } from '../db/idempotency.js'
import {
  idempotencyKeyReused,
  mixedRewards,
  repeatedRewards,
  rewardAlreadyClaimed,
  rewardNotFound,
  rewardsChanged,
} from '../errors.js'
import { type CreateBatches, unbatched } from './create-batches.js'

export interface CreateClaimContext {
  sql: Sql
  signer: VoucherSigner
  /** Seconds from creation to expires_at. */
  ttlS: number
  /** Whether the service watches a chain (has its RPC URL): only the chain then frees the claim. */
  watches: (chainId: string) => boolean
  /** The read and the write, shared with concurrent creates (createBatches); default: each create alone. */
  batches?: CreateBatches | undefined
}

export interface CreateClaimRequest {
  /** The caller, lower-case. */
  user: string
  rewardIds: string[]
  idempotencyKey?: string | undefined
  /** The signed-fetch signature of the request, recorded by the write (route config replay: 'route'). */
  usedSignature?: UsedSignature | undefined
}

export interface CreateClaimResult {
  claim: ClaimRow
  /** True when an Idempotency-Key gave back an earlier claim. */
  replayed: boolean
}

/** Raised by the rewards trigger when a reward would leave a live claim (migrations/00001). */
const LIVE_CLAIM_GUARD = 'GN001'
const UNIQUE_VIOLATION = '23505'
/** Raised by the write when a reward vanished between its check and its update (migrations/00003). */
const HALF_WRITTEN = 'GN003'
/** Not expected (the write locks rewards in index order), but a new round is the answer if it comes. */
const DEADLOCK = '40P01'

const requestHash = (rewardIds: string[]) =>
  createHash('sha256').update(JSON.stringify(rewardIds)).digest('hex')

const sqlState = (error: unknown) => (error instanceof postgres.PostgresError ? error.code : undefined)

/**
 * The create. The rewards are read and checked (the caller's, one chain and contract, none in a
 * live claim) and the voucher signed before anything is written and without holding a connection; then
 * one statement records the request's signature against replays, locks the rewards, inserts the claim,
 * points the rewards at it and records the Idempotency-Key (insertClaim). A reward that a concurrent create took between the read and the write
 * fails that statement in the database, so a reward is never in two live claims and a failed create
 * leaves nothing behind.
 */
export async function createClaim(
  context: CreateClaimContext,
  request: CreateClaimRequest,
): Promise<CreateClaimResult> {
  try {
    return await createAfterRaces(context, request)
  } catch (error) {
    // A replay usually fails a check before the write (its rewards are in the claim it made); it is
    // still answered as the replay it is, like on every other signed route.
    const refused = error instanceof HttpError && error.statusCode < 500
    if (refused && request.usedSignature && (await signatureUsed(context.sql, request.usedSignature))) {
      throw replayRefused()
    }
    throw error
  }
}

/** A write that lost a race to a concurrent create; nothing of it was written (the statement failed). */
class RaceLost extends Error {}

/** Rounds of read-check-write before giving up on rewards that keep changing under the request. */
const MAX_ROUNDS = 3

/**
 * A create that loses a race has a definite answer, the one a sequential create would get: its checks
 * run again on what the winner wrote (the taken rewards listed in `reward_already_claimed`, or a claim
 * when the winner's write was rolled back). Only rewards that keep changing end in the retry-later 409.
 */
async function createAfterRaces(
  context: CreateClaimContext,
  request: CreateClaimRequest,
): Promise<CreateClaimResult> {
  for (let round = 1; ; round++) {
    try {
      return await create(context, request)
    } catch (error) {
      if (!(error instanceof RaceLost)) throw error
      if (round === MAX_ROUNDS) throw rewardsChanged()
    }
  }
}

async function create(context: CreateClaimContext, request: CreateClaimRequest): Promise<CreateClaimResult> {
  const { sql } = context
  const statements = context.batches ?? unbatched(sql)
  const rewardIds = request.rewardIds.map((id) => id.toLowerCase())
  refuseDuplicates(rewardIds)
  const idempotency =
    request.idempotencyKey === undefined
      ? undefined
      : { key: request.idempotencyKey, requestHash: requestHash(rewardIds) }
  const replay = () => (idempotency ? earlierClaim(sql, request.user, idempotency) : undefined)
  // A concurrent create with the same Idempotency-Key that got there first is this request's answer.
  const lostTo = async (refusal: Error) => {
    const winner = await replay()
    if (winner) return winner
    throw refusal
  }

  const earlier = await replay()
  if (earlier) return earlier

  const found = (await statements.read(rewardIds)).filter((reward) => reward.user === request.user)
  const byId = new Map(found.map((reward) => [reward.id, reward]))
  const missing = rewardIds.filter((id) => !byId.has(id))
  if (missing.length > 0) {
    throw rewardNotFound(missing)
  }
  const ordered = rewardIds.map((id) => byId.get(id)!)

  const chains = [...new Set(ordered.map((reward) => reward.chain_id))]
  const contracts = [...new Set(ordered.map((reward) => reward.contract))]
  if (chains.length > 1 || contracts.length > 1) {
    throw mixedRewards(chains, contracts)
  }
  const taken = ordered.filter((reward) => reward.live_claim_id !== null).map((reward) => reward.id)
  if (taken.length > 0) return lostTo(rewardAlreadyClaimed(taken))

  // time-ordered (UUIDv7: milliseconds, then 74 random bits): a new claim's primary-key entry goes next to
  // the newest ones instead of into a random page of a large index, and claims made together (and so
  // expiring together, for the sweeper and the reconciler) lie together
  const claimId = timeOrderedUuid()
  const expiresAt = Math.floor(Date.now() / 1000) + context.ttlS
  const chainId = chains[0]!
  const contract = contracts[0]!
  const signed = context.signer.sign({
    claimId,
    beneficiary: request.user,
    itemIds: ordered.map((reward) => reward.item_id),
    expiresAt,
    chainId,
    contract,
  })
  try {
    const written = await statements.write({
      id: claimId,
      user: request.user,
      chainId,
      contract,
      transactionPayload: signed.transactionPayload,
      transactionPayloadHash: signed.transactionPayloadHash,
      rewards: rewardIds,
      expiresAt: new Date(expiresAt * 1000),
      watched: context.watches(chainId),
      idempotency,
      usedSignature: request.usedSignature,
    })
    if (written.outcome === 'inserted') return { claim: written.claim, replayed: false }
    throw written.outcome === 'replayed' ? replayRefused() : rewardsChanged()
  } catch (error) {
    const state = sqlState(error)
    if (state === UNIQUE_VIOLATION && idempotency) return lostTo(error as Error)
    if (state === LIVE_CLAIM_GUARD || state === HALF_WRITTEN || state === DEADLOCK) throw new RaceLost()
    throw error
  }
}

/** The claim an earlier request with this Idempotency-Key made; 409 if that request had another body. */
async function earlierClaim(
  sql: Sql,
  user: string,
  idempotency: { key: string; requestHash: string },
): Promise<CreateClaimResult | undefined> {
  const earlier = await findIdempotencyKey(sql, user, idempotency.key)
  if (!earlier) return undefined
  if (earlier.requestHash !== idempotency.requestHash) {
    throw idempotencyKeyReused(earlier.claimId)
  }
  return { claim: (await findClaim(sql, earlier.claimId))!, replayed: true }
}

function refuseDuplicates(ids: string[]) {
  const seen = new Set<string>()
  const duplicates = new Set(ids.filter((id) => seen.size === seen.add(id).size))
  if (duplicates.size > 0) {
    throw repeatedRewards([...duplicates])
  }
}
