import {
  BATCH_SIZE,
  type Queryable,
  type ResumedBatch,
  recordSignature,
  resumedBatches,
  type Sql,
  type UsedSignature,
} from '@genesis/common'
import type { ClaimTransaction } from '@genesis/wire/claims'
import { CHAIN_IDS, type ChainIdValue, type ClaimStatus } from '@genesis/wire/claims'
import { listUserPage } from './user-page.js'

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
  /** A claim of a watched chain is freed only by the reconciler, never by the clock (default: not watched). */
  watched?: boolean | undefined
  idempotency?: { key: string; requestHash: string } | undefined
  /** The signed-fetch signature of the request, recorded against replays in the same statement. */
  usedSignature?: UsedSignature | undefined
}

export type InsertedClaim =
  /** The claim was written. */
  | { outcome: 'inserted'; claim: ClaimRow }
  /** No reward matched at all, so nothing was written. */
  | { outcome: 'no_rewards' }
  /** The request's signature was used before: nothing was written. */
  | { outcome: 'replayed' }

/**
 * What a write answers of its new claim: what the database decided (its defaults). The rest is what the
 * write was given, stored as it was sent (ids and addresses as the rewards read gave them), so it is not
 * sent back: the payload alone is most of a claim's bytes.
 */
const WRITTEN_COLUMNS = 'claim.id, claim.status, claim.transaction_hash, claim.created_at, claim.updated_at'
type WrittenColumns = Pick<ClaimRow, 'id' | 'status' | 'transaction_hash' | 'created_at' | 'updated_at'>

/** The new claim as claim_transactions_current reads it (a new claim is live: its status as stored). */
const writtenClaim = (claim: NewClaim, row: WrittenColumns): ClaimRow => ({
  id: row.id,
  user: claim.user,
  chain_id: claim.chainId as ChainIdValue,
  contract: claim.contract,
  transaction_payload: claim.transactionPayload,
  transaction_payload_hash: claim.transactionPayloadHash,
  status: row.status,
  transaction_hash: row.transaction_hash,
  rewards: claim.rewards,
  expires_at: claim.expiresAt,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

/**
 * The key's CTE, only when there is a key: every insert of a statement opens its table and indexes when
 * the statement starts, even when it inserts no row.
 */
const idempotencyKey = (sql: Sql, claim: NewClaim) =>
  claim.idempotency
    ? sql`, key as (
        insert into idempotency_keys ("user", key, request_hash, claim_transaction_id)
        select claim."user", ${claim.idempotency.key}, ${claim.idempotency.requestHash}, claim.id from claim
      )`
    : sql``

/**
 * The whole write of a create, in one statement (so in one transaction, with one round trip): record the
 * request's signature against replays, insert the claim if every reward is the caller's, point the
 * rewards at it (locking them, in index order) and record the Idempotency-Key. A replayed signature
 * records nothing, so nothing else is written either; a missing reward or another user's writes no claim
 * and so points no reward. A reward that a concurrent create took meanwhile fails the statement in the
 * rewards trigger (GN001), and a key that a concurrent create recorded first on the key's primary key
 * (23505); a claim whose rewards could not all be pointed at it aborts it (GN003), so a claim is never
 * half-written. Rows are found by id alone, so that PostgreSQL can cache one plan for the statement.
 */
export async function insertClaim(sql: Sql, claim: NewClaim): Promise<InsertedClaim> {
  const used = claim.usedSignature ? recordSignature(sql, claim.usedSignature) : sql`select 1`
  const [row] = await sql<({ fresh: boolean } & (WrittenColumns | { id: null }))[]>`
    with used as (${used}), owned as (
      -- by id alone: a user's other rewards must not enter the plan (the user index would read them all)
      select count(*) filter (where "user" = ${claim.user}) as n from rewards where id = any(${claim.rewards}::uuid[])
    ), claim as (
      insert into claim_transactions
        (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash, rewards, expires_at, watched)
      select ${claim.id}, ${claim.user}, ${claim.chainId}, ${claim.contract}, ${claim.transactionPayload},
        ${claim.transactionPayloadHash}, ${claim.rewards}::uuid[], ${claim.expiresAt}, ${claim.watched ?? false}
      where exists (select from used) and (select n from owned) = ${claim.rewards.length}
      returning *
    ), taken as (
      update rewards set claim_transaction_id = claim.id, updated_at = now()
      from claim where rewards.id = any(${claim.rewards}::uuid[])
      returning rewards.id
    )${idempotencyKey(sql, claim)}
    select exists (select from used) as fresh, ${sql.unsafe(WRITTEN_COLUMNS)}
    from (values (1)) as one left join claim on true
    where case
      when not exists (select from claim) then true
      when (select count(*) from taken) = ${claim.rewards.length} then true
      else claims_abort('a reward of the claim vanished while it was written')
    end`
  if (!row?.fresh) return { outcome: 'replayed' }
  return row.id === null
    ? { outcome: 'no_rewards' }
    : { outcome: 'inserted', claim: writtenClaim(claim, row) }
}

/**
 * The writes of several creates in one statement, with what each would get from insertClaim alone: one
 * outcome per claim, in order. Each claim is written only if its own signature is new and its own rewards
 * are all its user's; one claim's refusal is its own. The claims must not share a reward, a signature or an
 * Idempotency-Key (the caller's batches never do; see create-batches.ts): otherwise the statement could not
 * tell which of two won. A failure of the statement (a reward taken by a concurrent create, a key recorded
 * first by one, a reward that vanished) writes nothing of any claim: the caller then writes each alone.
 *
 * The claims go in by user, so that two such statements update the users' totals (a trigger, at the
 * statement's end) in one order and never wait on each other crosswise; rewards are locked in index order.
 * Each claim's ownership count reads its rewards by primary key alone, as insertClaim's does.
 */
export async function insertClaims(sql: Sql, claims: NewClaim[]): Promise<InsertedClaim[]> {
  const sorted = [...claims].sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : 0))
  // every column as text, cast in the statement: the client sends arrays of dates and booleans as
  // scalars of their element type
  const column = (pick: (claim: NewClaim) => string | null) => sorted.map(pick)
  const keyed = sorted.some((claim) => claim.idempotency)
  const rows = await sql<({ input_id: string; fresh: boolean } & (WrittenColumns | { id: null }))[]>`
    with input as (
      select * from unnest(
        ${column((c) => c.id)}::uuid[], ${column((c) => c.user)}::text[], ${column((c) => c.chainId)}::text[],
        ${column((c) => c.contract)}::text[], ${column((c) => c.transactionPayload)}::text[],
        ${column((c) => c.transactionPayloadHash)}::text[], ${column((c) => `{${c.rewards.join(',')}}`)}::text[],
        ${column((c) => c.expiresAt.toISOString())}::timestamptz[], ${column((c) => String(c.watched ?? false))}::boolean[],
        ${column((c) => c.usedSignature?.signature ?? null)}::text[],
        ${column((c) => c.usedSignature?.expiresAt.toISOString() ?? null)}::timestamptz[],
        ${column((c) => c.idempotency?.key ?? null)}::text[],
        ${column((c) => c.idempotency?.requestHash ?? null)}::text[]
      ) as i (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash, rewards, expires_at,
        watched, signature, signature_expires_at, key, request_hash)
    ), used as (
      insert into signed_fetch_replays (signature, expires_at)
      select signature, signature_expires_at from input where signature is not null
      on conflict (signature) do nothing
      returning signature
    ), fresh as (
      select i.*, i.rewards::uuid[] as reward_ids,
        i.signature is null or i.signature in (select signature from used) as fresh
      from input i
    ), claim as (
      insert into claim_transactions
        (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash, rewards, expires_at, watched)
      select f.id, f."user", f.chain_id, f.contract, f.transaction_payload, f.transaction_payload_hash,
        f.reward_ids, f.expires_at, f.watched
      from fresh f
      where f.fresh and (
        -- by id alone: a user's other rewards must not enter the plan (the user index would read them all)
        select count(*) filter (where r."user" = f."user") from rewards r where r.id = any(f.reward_ids)
      ) = cardinality(f.reward_ids)
      returning *
    ), taken as (
      update rewards set claim_transaction_id = pointer.claim_id, updated_at = now()
      from (select claim.id as claim_id, unnest(claim.rewards) as reward_id from claim) as pointer
      where rewards.id = any(${sorted.flatMap((c) => c.rewards)}::uuid[]) and rewards.id = pointer.reward_id
      returning rewards.id
    )${
      keyed
        ? sql`, key as (
        insert into idempotency_keys ("user", key, request_hash, claim_transaction_id)
        select claim."user", f.key, f.request_hash, claim.id from claim join fresh f on f.id = claim.id
        where f.key is not null
      )`
        : sql``
    }
    select f.id as input_id, f.fresh, ${sql.unsafe(WRITTEN_COLUMNS)}
    from fresh f left join claim on claim.id = f.id
    where case
      when (select count(*) from taken) = (select coalesce(sum(cardinality(claim.rewards)), 0) from claim) then true
      else claims_abort('a reward of a claim vanished while it was written')
    end`
  const byId = new Map(rows.map((row) => [row.input_id, row]))
  return claims.map((claim): InsertedClaim => {
    const row = byId.get(claim.id)
    if (!row) throw new Error(`the write answered no row for claim ${claim.id}`)
    if (!row.fresh) return { outcome: 'replayed' }
    return row.id === null
      ? { outcome: 'no_rewards' }
      : { outcome: 'inserted', claim: writtenClaim(claim, row) }
  })
}

export async function findClaim(sql: Queryable, id: string): Promise<ClaimRow | undefined> {
  const [row] = await sql<ClaimRow[]>`select * from claim_transactions_current where id = ${id}`
  return row
}

/** A page of a user's claims, newest first, and their total. */
export const listClaims = (sql: Queryable, user: string, page: { limit: number; offset: number }) =>
  listUserPage<ClaimRow>(
    sql,
    { view: 'claim_transactions_current', table: 'claim_transactions', kept: 'claims' },
    user,
    page,
  )

/** The claim locked for a status change, with its status as it reads now. */
export async function lockClaim(sql: Queryable, id: string): Promise<ClaimRow | undefined> {
  const [row] = await sql<ClaimRow[]>`
    select id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
      case when status = 'claimed' and not watched and expires_at <= now() then 'failed' else status end as status,
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

/** Every chain id, as an array literal written into the statements that look at each chain. */
const CHAIN_LIST = `'{${CHAIN_IDS.join(',')}}'`

/**
 * The batches of one sweep: each up to BATCH_SIZE unwatched claims that expired while `claimed`, oldest
 * expiry first (reads already show them failed; this writes it down), starting where the batch before
 * ended (resumedBatches). Each chain's expired claims are a range of claim_transactions_unwatched; a batch
 * merges the chains' ranges, so it reads only the rows it changes. (Every claim expiring before the batch's
 * last expiry was in the batch: it took the oldest of all chains. One that turns `claimed` again behind the
 * cursor is the next sweep's.)
 */
export const expiredClaimsFailing = () =>
  resumedBatches(
    // joined to the batch's ids (not `id = any(…)`), so that the update finds its rows by primary key
    // rather than walking an index of the conditions it checks again
    async (sql, after) =>
      (
        await sql<ResumedBatch[]>`
          with failed as (
            update claim_transactions c set status = 'failed', updated_at = greatest(c.updated_at, c.expires_at)
            from unnest(array(
                select x.id from unnest(${sql.unsafe(CHAIN_LIST)}::text[]) as chain (id), lateral (
                  select id, expires_at from claim_transactions
                  where chain_id = chain.id and not watched and status = 'claimed'
                    and expires_at >= ${after}::text::timestamptz and expires_at <= now()
                  order by expires_at limit ${sql.unsafe(String(BATCH_SIZE))}) as x
                order by x.expires_at limit ${sql.unsafe(String(BATCH_SIZE))})) as batch (id)
            where c.id = batch.id and c.status = 'claimed' and not c.watched and c.expires_at <= now()
            returning c.expires_at)
          select count(*)::int as n, max(expires_at)::text as last from failed`
      )[0],
  )
