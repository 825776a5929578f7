import { BATCH_SIZE, type ChainIdentity, type Queryable, type Sql } from '@genesis/common'
import type { Redemption } from '../chain/dispenser.js'

/** A live claim of a watched chain, as the reconciler needs it. */
export interface LiveClaim {
  id: string
  contract: string
  expires_at: Date
  status: 'claimed' | 'pending'
  transaction_hash: string | null
}

const batch = (sql: Queryable) => sql.unsafe(String(BATCH_SIZE))

/**
 * One batch of the adoption of a chain newly given an RPC URL: up to BATCH_SIZE of its claims that are
 * still live by the clock rule (a `pending` one, then a `claimed` one not yet expired) become watched, so
 * that from now on only the chain frees them. Both are ranges of claim_transactions_unwatched.
 */
export async function adoptLiveClaims(sql: Queryable, chainId: string): Promise<number> {
  // joined to the batch's ids: found by primary key (see expiredClaimsFailing)
  const result = await sql`
    update claim_transactions c set watched = true
    from unnest(array(
        (select id from claim_transactions
         where chain_id = ${chainId} and not watched and status = 'pending'
         order by expires_at limit ${batch(sql)})
        union all
        (select id from claim_transactions
         where chain_id = ${chainId} and not watched and status = 'claimed' and expires_at > now()
         order by expires_at limit ${batch(sql)})
        limit ${batch(sql)})) as adopted (id)
    where c.id = adopted.id and c.chain_id = ${chainId} and not c.watched
      and (c.status = 'pending' or (c.status = 'claimed' and c.expires_at > now()))`
  return result.count
}

/**
 * The distinct contracts of the chain's watched live claims, one probe of claim_transactions_watched_expiry
 * each (a skip over the index rather than a read of every live claim): the addresses whose Claimed events
 * matter.
 */
export async function liveContracts(sql: Queryable, chainId: string): Promise<string[]> {
  const rows = await sql<{ contract: string }[]>`
    with recursive contracts (contract) as (
      (select contract from claim_transactions
       where chain_id = ${chainId} and watched and status in ('claimed', 'pending')
       order by contract limit 1)
      union all
      select (select c.contract from claim_transactions c
              where c.chain_id = ${chainId} and c.watched and c.status in ('claimed', 'pending')
                and c.contract > contracts.contract
              order by c.contract limit 1)
      from contracts where contracts.contract is not null
    )
    select contract from contracts where contract is not null`
  return rows.map((row) => row.contract)
}

export async function readCursor(sql: Queryable, chainId: string): Promise<number | null> {
  const [row] = await sql<
    { block: string }[]
  >`select block from reconciler_cursors where chain_id = ${chainId}`
  return row ? Number(row.block) : null
}

/** Never moves back: two replicas may scan the same range, the further one wins. */
export async function advanceCursor(sql: Queryable, chainId: string, block: number): Promise<void> {
  await sql`
    insert into reconciler_cursors (chain_id, block) values (${chainId}, ${block})
    on conflict (chain_id) do update set block = greatest(reconciler_cursors.block, excluded.block), updated_at = now()`
}

/**
 * Claims redeemed on chain become successful: only a watched live claim of that chain and that very
 * contract (an event of another contract with the same id proves nothing). Returns the ids it moved.
 */
export async function markRedeemed(
  sql: Queryable,
  chainId: string,
  redemptions: readonly Pick<Redemption, 'claimId' | 'contract'>[],
): Promise<string[]> {
  if (redemptions.length === 0) return []
  const rows = await sql<{ id: string }[]>`
    update claim_transactions c set status = 'successful', updated_at = now()
    from unnest(${redemptions.map((r) => r.claimId)}::uuid[], ${redemptions.map((r) => r.contract)}::text[])
      as r(id, contract)
    where c.id = r.id and c.contract = r.contract and c.chain_id = ${chainId}
      and c.watched and c.status in ('claimed', 'pending')
    returning c.id`
  return rows.map((row) => row.id)
}

/**
 * Watched live claims whose voucher's expiresAt (whole seconds) is before `finalTimestamp`: the final
 * block is past their expiry, so `claimed(claimId)` there is the voucher's last word.
 */
export async function expiredLiveClaims(
  sql: Queryable,
  chainId: string,
  finalTimestamp: number,
  limit: number,
): Promise<LiveClaim[]> {
  // expiresAt is expires_at in whole seconds, rounded down: below a whole `finalTimestamp` exactly when
  // expires_at is. Per contract a range of claim_transactions_watched_expiry, merged.
  const contracts = await liveContracts(sql, chainId)
  if (contracts.length === 0) return []
  return sql<LiveClaim[]>`
    select x.* from unnest(${contracts}::text[]) as live (contract), lateral (
      select id, contract, expires_at, status, transaction_hash from claim_transactions
      where chain_id = ${chainId} and contract = live.contract and watched and status in ('claimed', 'pending')
        and expires_at < to_timestamp(${finalTimestamp})
      order by expires_at limit ${limit}) as x
    order by x.expires_at
    limit ${limit}`
}

/** The dead voucher's claim fails, freeing its rewards; only while it is still live. */
export async function markDead(sql: Queryable, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return []
  const rows = await sql<{ id: string }[]>`
    update claim_transactions set status = 'failed', updated_at = now()
    where id = any(${ids}::uuid[]) and watched and status in ('claimed', 'pending')
    returning id`
  return rows.map((row) => row.id)
}

/** Pending claims of a watched chain, least recently looked at first, with whether the report is old. */
export async function pendingClaims(
  sql: Queryable,
  chainId: string,
  graceS: number,
  limit: number,
): Promise<(LiveClaim & { transaction_hash: string; report_is_old: boolean })[]> {
  return sql<(LiveClaim & { transaction_hash: string; report_is_old: boolean })[]>`
    select id, contract, expires_at, status, transaction_hash,
      updated_at + make_interval(secs => ${graceS}) < now() as report_is_old
    from claim_transactions
    where chain_id = ${chainId} and watched and status = 'pending'
    order by updated_at
    limit ${limit}`
}

/**
 * A report that did not redeem the voucher ends nothing: the claim goes back to `claimed` (the wallet may
 * send again), and only if it still carries the hash that was checked, so that a hash the owner reported
 * meanwhile is never judged by the old one's receipt.
 */
export async function returnToClaimed(sql: Queryable, id: string, checkedHash: string): Promise<boolean> {
  const result = await sql`
    update claim_transactions set status = 'claimed', transaction_hash = null, updated_at = now()
    where id = ${id} and status = 'pending' and transaction_hash = ${checkedHash}`
  return result.count > 0
}

/** The chain whose blocks the claims of `chainId` were decided on, if recorded. */
export async function rememberedChain(sql: Queryable, chainId: string): Promise<ChainIdentity | null> {
  const [row] = await sql<{ genesis_hash: string }[]>`
    select genesis_hash from chain_identities where chain_id = ${chainId}`
  return row ? { chainId, genesisHash: row.genesis_hash } : null
}

/** Records the chain of a chain id seen for the first time (a replica that recorded it first wins). */
export async function recordChain(sql: Queryable, chain: ChainIdentity): Promise<void> {
  await sql`
    insert into chain_identities (chain_id, genesis_hash) values (${chain.chainId}, ${chain.genesisHash})
    on conflict (chain_id) do nothing`
}

/**
 * A development chain replaced by `chain`: in one transaction, its watched claims whose state came from
 * the old chain's proof go back to `claimed` for the new chain to decide (`successful`: the redemption
 * minted nothing on the new chain; `pending`: the reported transaction was sent to the old one), the
 * cursor is forgotten (the scan starts again on the new chain), and the new chain is recorded. `failed`
 * claims stay failed: their rewards are free and may already be in another claim. Replicas serialise on
 * an advisory lock and a replica finding the chain already recorded does nothing (null).
 */
export async function startChainOver(
  sql: Sql,
  chain: ChainIdentity,
  previous: string | null,
): Promise<{ reopened: number } | null> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('claims chain identity'), hashtext(${chain.chainId}))`
    const [row] = await tx<{ genesis_hash: string }[]>`
      select genesis_hash from chain_identities where chain_id = ${chain.chainId}`
    if ((row?.genesis_hash ?? null) !== previous) return null
    await tx`select set_config('claims.replaced_chain', ${chain.chainId}, true)`
    const reopened = await tx`
      update claim_transactions set status = 'claimed', transaction_hash = null, updated_at = now()
      where chain_id = ${chain.chainId} and watched and status in ('successful', 'pending')`
    await tx`delete from reconciler_cursors where chain_id = ${chain.chainId}`
    await tx`
      insert into chain_identities (chain_id, genesis_hash) values (${chain.chainId}, ${chain.genesisHash})
      on conflict (chain_id) do update set genesis_hash = excluded.genesis_hash, recorded_at = now()`
    return { reopened: reopened.count }
  })
}
