import type { Queryable } from '@genesis/common'
import type { ChainIdValue, Reward } from '@genesis/wire/claims'
import { listUserPage } from './user-page.js'

/** A reward as read through rewards_current: claimable and its live claim, if any. */
export interface RewardRow {
  id: string
  user: string
  chain_id: ChainIdValue
  contract: string
  item_id: string
  campaign: string | null
  claimable: boolean
  claim_transaction_id: string | null
  created_at: Date
  updated_at: Date
}

export const toReward = (row: RewardRow): Reward => ({
  id: row.id,
  user: row.user,
  chain_id: row.chain_id,
  contract: row.contract,
  item_id: row.item_id,
  campaign: row.campaign,
  claimable: row.claimable,
  claim_transaction_id: row.claim_transaction_id,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
})

/** What the create needs to know of a reward before it signs. */
export interface RewardToClaim {
  id: string
  user: string
  chain_id: string
  contract: string
  item_id: string
  /** The live claim holding the reward, if any. */
  live_claim_id: string | null
}

/**
 * The rewards among `ids`, read without locks, and which of them a live claim holds. Each statement finds
 * its rows by primary key alone (the caller checks `user`): a plan that depends on no other parameter is
 * one PostgreSQL can cache and reuse instead of planning each time, and one without a join cannot have
 * been cached as a scan of a table that was still small when the connection prepared it. A reward that
 * was never claimed, the usual case, needs no second statement.
 */
export async function rewardsToClaim(sql: Queryable, ids: string[]): Promise<RewardToClaim[]> {
  const rewards = await sql<
    (Omit<RewardToClaim, 'live_claim_id'> & { claim_transaction_id: string | null })[]
  >`
    select id, "user", chain_id, contract, item_id::text as item_id, claim_transaction_id
    from rewards where id = any(${ids}::uuid[])`
  const pointed = rewards.flatMap((reward) => reward.claim_transaction_id ?? [])
  const live =
    pointed.length === 0
      ? new Set<string>()
      : new Set(
          (
            await sql<{ id: string }[]>`
              select id from claim_transactions
              where id = any(${pointed}::uuid[]) and claim_is_live(status, expires_at, watched)`
          ).map((claim) => claim.id),
        )
  return rewards.map((reward) => ({
    id: reward.id,
    user: reward.user,
    chain_id: reward.chain_id,
    contract: reward.contract,
    item_id: reward.item_id,
    live_claim_id:
      reward.claim_transaction_id !== null && live.has(reward.claim_transaction_id)
        ? reward.claim_transaction_id
        : null,
  }))
}

/**
 * rewardsToClaim for several creates in one read: each gets the rows of its own ids, as it would alone
 * (a reward asked for by two creates is read once and given to both).
 */
export async function rewardsToClaimEach(sql: Queryable, lists: string[][]): Promise<RewardToClaim[][]> {
  const rows = await rewardsToClaim(sql, [...new Set(lists.flat())])
  const byId = new Map(rows.map((row) => [row.id, row]))
  return lists.map((ids) => ids.flatMap((id) => byId.get(id) ?? []))
}

/** A page of a user's rewards, newest first, and their total. */
export const listRewards = (sql: Queryable, user: string, page: { limit: number; offset: number }) =>
  listUserPage<RewardRow>(sql, { view: 'rewards_current', table: 'rewards', kept: 'rewards' }, user, page)

export async function findRewards(sql: Queryable, ids: string[]): Promise<RewardRow[]> {
  return sql<RewardRow[]>`select * from rewards_current where id = any(${ids}::uuid[])`
}

export interface NewReward {
  id: string
  user: string
  chainId: string
  contract: string
  itemId: string
  campaign: string | null
}

/** Inserts the rewards whose id is new; returns the ids it inserted. */
export async function insertRewards(sql: Queryable, rewards: NewReward[]): Promise<Set<string>> {
  const rows = await sql<{ id: string }[]>`
    insert into rewards (id, "user", chain_id, contract, item_id, campaign)
    select * from unnest(
      ${rewards.map((r) => r.id)}::uuid[],
      ${rewards.map((r) => r.user)}::text[],
      ${rewards.map((r) => r.chainId)}::text[],
      ${rewards.map((r) => r.contract)}::text[],
      ${rewards.map((r) => r.itemId)}::numeric[],
      ${rewards.map((r) => r.campaign)}::text[]
    )
    on conflict (id) do nothing
    returning id`
  return new Set(rows.map((row) => row.id))
}
