import type { ChainIdValue } from '../schemas/primitives.js'
import type { Reward } from '../schemas/reward.js'
import type { Queryable } from './queryable.js'

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

/** What the create needs of a locked reward; claim_transaction_id is its latest claim, live or not. */
export interface LockedReward {
  id: string
  chain_id: string
  contract: string
  item_id: string
  claim_transaction_id: string | null
}

/**
 * Locks the caller's rewards among `ids`, always in id order so that concurrent creates over
 * overlapping sets cannot deadlock. Rows of other users are neither returned nor locked.
 */
export async function lockUserRewards(sql: Queryable, user: string, ids: string[]): Promise<LockedReward[]> {
  return sql<LockedReward[]>`
    select id, chain_id, contract, item_id::text as item_id, claim_transaction_id
    from rewards
    where id = any(${ids}::uuid[]) and "user" = ${user}
    order by id
    for update`
}

export async function listRewards(
  sql: Queryable,
  user: string,
  page: { limit: number; offset: number },
): Promise<{ rows: RewardRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<RewardRow[]>`
      select * from rewards_current where "user" = ${user}
      order by created_at desc, id desc
      limit ${page.limit} offset ${page.offset}`,
    sql<{ total: number }[]>`select count(*)::int as total from rewards where "user" = ${user}`,
  ])
  return { rows, total: count?.total ?? 0 }
}

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
