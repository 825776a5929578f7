import type { ClaimTransaction } from '../schemas/claim-transaction.js'
import type { ChainIdValue, ClaimStatus } from '../schemas/primitives.js'
import type { Queryable } from './queryable.js'

/** A claim as read through claim_transactions_current: status and updated_at already account for expiry. */
export interface ClaimRow {
  id: string
  user: string
  chain_id: ChainIdValue
  contract: string
  transaction_payload: string
  transaction_payload_hash: string
  status: ClaimStatus
  transaction_hash: string | null
  rewards: string[]
  expires_at: Date
  created_at: Date
  updated_at: Date
}

export const toClaimTransaction = (row: ClaimRow): ClaimTransaction => ({
  id: row.id,
  user: row.user,
  chain_id: row.chain_id,
  contract: row.contract,
  transaction_payload: row.transaction_payload,
  transaction_payload_hash: row.transaction_payload_hash,
  status: row.status,
  rewards: row.rewards,
  transaction_hash: row.transaction_hash,
  expires_at: row.expires_at.toISOString(),
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
})

export interface NewClaim {
  id: string
  user: string
  chainId: string
  contract: string
  transactionPayload: string
  transactionPayloadHash: string
  rewards: string[]
  expiresAt: Date
}

/** Inserts the claim and points its rewards at it, in one statement. */
export async function insertClaim(sql: Queryable, claim: NewClaim): Promise<ClaimRow> {
  const [row] = await sql<ClaimRow[]>`
    with claim as (
      insert into claim_transactions
        (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash, rewards, expires_at)
      values
        (${claim.id}, ${claim.user}, ${claim.chainId}, ${claim.contract}, ${claim.transactionPayload},
         ${claim.transactionPayloadHash}, ${claim.rewards}::uuid[], ${claim.expiresAt})
      returning *
    ), taken as (
      update rewards set claim_transaction_id = ${claim.id}, updated_at = now()
      where id = any(${claim.rewards}::uuid[])
    )
    select id, "user", chain_id, contract, transaction_payload, transaction_payload_hash, status,
      transaction_hash, rewards, expires_at, created_at, updated_at
    from claim`
  return row!
}

export async function findClaim(sql: Queryable, id: string): Promise<ClaimRow | undefined> {
  const [row] = await sql<ClaimRow[]>`select * from claim_transactions_current where id = ${id}`
  return row
}

export async function listClaims(
  sql: Queryable,
  user: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ClaimRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<ClaimRow[]>`
      select * from claim_transactions_current where "user" = ${user}
      order by created_at desc, id desc
      limit ${page.limit} offset ${page.offset}`,
    sql<{ total: number }[]>`select count(*)::int as total from claim_transactions where "user" = ${user}`,
  ])
  return { rows, total: count?.total ?? 0 }
}

/** The claim locked for a status change, with its status as it reads now. */
export async function lockClaim(sql: Queryable, id: string): Promise<ClaimRow | undefined> {
  const [row] = await sql<ClaimRow[]>`
    select id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
      case when status = 'claimed' and expires_at <= now() then 'failed' else status end as status,
      transaction_hash, rewards, expires_at, created_at, updated_at
    from claim_transactions where id = ${id}
    for update`
  return row
}

export async function setClaimStatus(
  sql: Queryable,
  id: string,
  change: { status: ClaimStatus; transactionHash: string | null },
): Promise<ClaimRow> {
  await sql`
    update claim_transactions
    set status = ${change.status}, transaction_hash = coalesce(${change.transactionHash}, transaction_hash),
      updated_at = now()
    where id = ${id}`
  return (await findClaim(sql, id))!
}

/** Claim ids among `ids` that still hold their rewards (claim_is_live). */
export async function liveClaimIds(sql: Queryable, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await sql<{ id: string }[]>`
    select id from claim_transactions
    where id = any(${ids}::uuid[]) and claim_is_live(status, expires_at)`
  return new Set(rows.map((row) => row.id))
}
