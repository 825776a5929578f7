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
 * The rewards among `ids`, read without locks. Looked up by id alone (the caller checks `user`): a plan
 * that depends on no other parameter is one PostgreSQL can cache and reuse instead of planning each time.
 */
export async function rewardsToClaim(sql: Queryable, ids: string[]): Promise<RewardToClaim[]> {
  return sql<RewardToClaim[]>`
    select r.id, r."user", r.chain_id, r.contract, r.item_id::text as item_id, live.id as live_claim_id
    from rewards r
    left join claim_transactions live
      on live.id = r.claim_transaction_id and claim_is_live(live.status, live.expires_at)
    where r.id = any(${ids}::uuid[])`
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
