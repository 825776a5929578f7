import { createHash, randomUUID } from 'node:crypto'
import { BadRequestError, ConflictError, type Sql } from '@genesis/common'
import postgres from 'postgres'
import { type ClaimRow, findClaim, insertClaim, liveClaimIds } from '../db/claim-transactions.js'
import { claimIdempotencyKey } from '../db/idempotency.js'
import { lockUserRewards } from '../db/rewards.js'
import type { VoucherSigner } from '../voucher/voucher.js'

export interface CreateClaimContext {
  sql: Sql
  signer: VoucherSigner
  /** Seconds from creation to expires_at. */
  ttlS: number
}

export interface CreateClaimRequest {
  /** The caller, lower-case. */
  user: string
  rewardIds: string[]
  idempotencyKey?: string | undefined
}

export interface CreateClaimResult {
  claim: ClaimRow
  /** True when an Idempotency-Key gave back an earlier claim. */
  replayed: boolean
}

/** Raised by the rewards trigger when a reward would leave a live claim (migrations/00001). */
const LIVE_CLAIM_GUARD = 'GN001'

const requestHash = (rewardIds: string[]) =>
  createHash('sha256').update(JSON.stringify(rewardIds)).digest('hex')

/**
 * DESIGN §4 create: in one transaction, with the caller's rewards locked in id order, check that every
 * id is the caller's, that they share chain and contract and that none is in a live claim; then sign the
 * voucher and insert the claim. Any failure rolls everything back, the Idempotency-Key included.
 */
export async function createClaim(
  context: CreateClaimContext,
  request: CreateClaimRequest,
): Promise<CreateClaimResult> {
  const rewardIds = request.rewardIds.map((id) => id.toLowerCase())
  refuseDuplicates(rewardIds)
  const claimId = randomUUID()
  try {
    return await context.sql.begin(async (tx) => {
      if (request.idempotencyKey !== undefined) {
        const hash = requestHash(rewardIds)
        const earlier = await claimIdempotencyKey(tx, {
          user: request.user,
          key: request.idempotencyKey,
          requestHash: hash,
          claimId,
        })
        if (earlier) {
          if (earlier.requestHash !== hash) {
            throw new ConflictError('This Idempotency-Key was already used with a different body', {
              code: 'idempotency_key_reused',
              data: { claim_transaction_id: earlier.claimId },
            })
          }
          return { claim: (await findClaim(tx, earlier.claimId))!, replayed: true }
        }
      }

      const locked = await lockUserRewards(tx, request.user, rewardIds)
      const byId = new Map(locked.map((reward) => [reward.id, reward]))
      const missing = rewardIds.filter((id) => !byId.has(id))
      if (missing.length > 0) {
        throw new BadRequestError(`Rewards not found: ${missing.join(', ')}`, {
          code: 'reward_not_found',
          data: { rewards: missing },
        })
      }
      const ordered = rewardIds.map((id) => byId.get(id)!)

      const chains = [...new Set(ordered.map((reward) => reward.chain_id))]
      const contracts = [...new Set(ordered.map((reward) => reward.contract))]
      if (chains.length > 1 || contracts.length > 1) {
        throw new BadRequestError('All rewards of one claim must share chain_id and contract', {
          code: 'mixed_rewards',
          data: { chain_ids: chains, contracts },
        })
      }

      const previous = [...new Set(locked.flatMap((reward) => reward.claim_transaction_id ?? []))]
      const live = await liveClaimIds(tx, previous)
      const taken = ordered.filter(
        (reward) => reward.claim_transaction_id && live.has(reward.claim_transaction_id),
      )
      if (taken.length > 0) {
        throw new BadRequestError(`Rewards already in a live claim: ${taken.map((r) => r.id).join(', ')}`, {
          code: 'reward_already_claimed',
          data: { rewards: taken.map((reward) => reward.id) },
        })
      }

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
      const claim = await insertClaim(tx, {
        id: claimId,
        user: request.user,
        chainId,
        contract,
        transactionPayload: signed.transactionPayload,
        transactionPayloadHash: signed.transactionPayloadHash,
        rewards: rewardIds,
        expiresAt: new Date(expiresAt * 1000),
      })
      return { claim, replayed: false }
    })
  } catch (error) {
    if (error instanceof postgres.PostgresError && error.code === LIVE_CLAIM_GUARD) {
      throw new BadRequestError('A reward is already in a live claim', { code: 'reward_already_claimed' })
    }
    throw error
  }
}

function refuseDuplicates(ids: string[]) {
  const seen = new Set<string>()
  const duplicates = new Set(ids.filter((id) => seen.size === seen.add(id).size))
  if (duplicates.size > 0) {
    throw new BadRequestError(`body.rewards must not repeat an id: ${[...duplicates].join(', ')}`, {
      data: {
        errors: [{ path: 'body.rewards', message: 'must not repeat an id' }],
        rewards: [...duplicates],
      },
    })
  }
}
