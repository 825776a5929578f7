import { randomUUID } from 'node:crypto'
import type { Sql } from '@genesis/common'
import { type RewardGrant, UINT256_MAX } from '@genesis/wire/claims'
import { findRewards, insertRewards, type NewReward, type RewardRow } from '../db/rewards.js'
import { chainNotConfigured, invalidRequest, rewardIdConflict } from '../errors.js'

export interface GrantPolicy {
  /** In production, a chain without an RPC URL is refused: nothing could tell its vouchers redeemed. */
  chainAccepted: (chainId: string) => boolean
}

/**
 * POST /api/rewards: all or nothing. A grant with a client-chosen id that already exists with the same
 * content is a no-op (safe retry); with different content it is a 409 and nothing is granted.
 */
export async function grantRewards(
  sql: Sql,
  grants: RewardGrant[],
  policy: GrantPolicy,
): Promise<RewardRow[]> {
  const rewards = grants.map(toNewReward)
  refuseInvalid(rewards)
  const unwatched = [...new Set(rewards.map((r) => r.chainId))].filter((c) => !policy.chainAccepted(c))
  if (unwatched.length > 0) throw chainNotConfigured(unwatched)
  return sql.begin(async (tx) => {
    const inserted = await insertRewards(tx, rewards)
    const rows = await findRewards(
      tx,
      rewards.map((reward) => reward.id),
    )
    const byId = new Map(rows.map((row) => [row.id, row]))
    const conflicting = rewards.filter(
      (reward) => !inserted.has(reward.id) && !sameGrant(byId.get(reward.id)!, reward),
    )
    if (conflicting.length > 0) {
      throw rewardIdConflict(conflicting.map((reward) => reward.id))
    }
    return rewards.map((reward) => byId.get(reward.id)!)
  })
}

const toNewReward = (grant: RewardGrant): NewReward => ({
  id: (grant.id ?? randomUUID()).toLowerCase(),
  user: grant.user.toLowerCase(),
  chainId: grant.chain_id,
  contract: grant.contract.toLowerCase(),
  // canonical decimal: no leading zeros, so that a retry compares equal
  itemId: BigInt(grant.item_id).toString(),
  campaign: grant.campaign ?? null,
})

function refuseInvalid(rewards: NewReward[]) {
  const errors: { path: string; message: string }[] = []
  const seen = new Set<string>()
  rewards.forEach((reward, i) => {
    if (BigInt(reward.itemId) > UINT256_MAX)
      errors.push({ path: `body.rewards.${i}.item_id`, message: 'exceeds uint256' })
    if (seen.has(reward.id)) errors.push({ path: `body.rewards.${i}.id`, message: `repeats ${reward.id}` })
    seen.add(reward.id)
  })
  if (errors.length > 0) {
    throw invalidRequest(errors)
  }
}

const sameGrant = (row: RewardRow, reward: NewReward) =>
  row.user === reward.user &&
  row.chain_id === reward.chainId &&
  row.contract === reward.contract &&
  row.item_id === reward.itemId &&
  row.campaign === reward.campaign
