import type { Sql } from '@genesis/common'
import { createBatcher } from '../db/batcher.js'
import { type InsertedClaim, insertClaim, insertClaims, type NewClaim } from '../db/claim-transactions.js'
import { type RewardToClaim, rewardsToClaim, rewardsToClaimEach } from '../db/rewards.js'

/**
 * The create's two statements, shared by concurrent creates (createBatcher): the rewards reads of the
 * creates waiting together are one read, their writes one write statement and one commit. What a create
 * reads and whether its write is made, refused or lost to a race stays its own (insertClaims answers per
 * claim; a failed batch is written claim by claim), so every create answers what it would answer alone.
 */
export interface CreateBatches {
  /** rewardsToClaim of these ids. */
  read(ids: string[]): Promise<RewardToClaim[]>
  /** insertClaim of this claim. */
  write(claim: NewClaim): Promise<InsertedClaim>
}

export interface CreateBatchesOptions {
  /** Creates of one statement at most (default 24). */
  maxItems?: number
  /** Statements of each kind running at once at most (default 2, of the pool's connections). */
  maxInFlight?: number
}

/**
 * Whether a write may share a statement with those taken: not if they share a reward (one statement could
 * not point it at both), a signature (one would be a replay of the other) or a user's Idempotency-Key (one
 * would answer the other's claim). Such a create waits for a later statement, which sees the first one's
 * outcome as a create sent after it would.
 */
function independent(taken: NewClaim[], claim: NewClaim): boolean {
  const signature = claim.usedSignature?.signature
  const key = claim.idempotency?.key
  const rewards = new Set(claim.rewards)
  return taken.every(
    (other) =>
      (signature === undefined || other.usedSignature?.signature !== signature) &&
      (key === undefined || other.user !== claim.user || other.idempotency?.key !== key) &&
      !other.rewards.some((id) => rewards.has(id)),
  )
}

export function createBatches(sql: Sql, options: CreateBatchesOptions = {}): CreateBatches {
  const limits = { maxItems: options.maxItems ?? 24, maxInFlight: options.maxInFlight ?? 2 }
  const reads = createBatcher<string[], RewardToClaim[]>({
    ...limits,
    many: (lists) => rewardsToClaimEach(sql, lists),
    one: (ids) => rewardsToClaim(sql, ids),
  })
  const writes = createBatcher<NewClaim, InsertedClaim>({
    ...limits,
    many: (claims) => insertClaims(sql, claims),
    one: (claim) => insertClaim(sql, claim),
    joins: independent,
  })
  return { read: (ids) => reads.run(ids), write: (claim) => writes.run(claim) }
}

/** The statements one by one, each create on its own (no batching). */
export const unbatched = (sql: Sql): CreateBatches => ({
  read: (ids) => rewardsToClaim(sql, ids),
  write: (claim) => insertClaim(sql, claim),
})
