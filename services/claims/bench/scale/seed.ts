/**
 * A claims database at a chosen volume, generated in SQL (generate_series), for the scale bench.
 *
 * Shape, per owner: `rewards / owners` rewards, `claims / owners` claims of 3 rewards each (the pointers of
 * those rewards set to them), spread over two years. Of the claims, `live` are live (half `claimed` and not
 * expired, half `pending` with a transaction hash), half of them on chain 137 and half on chain 80002, none
 * watched (the bench's service has no RPC URL); the others are settled: 85 % `successful`, 15 % `failed`.
 * Idempotency keys and used signatures as a day and five minutes of creates leave them. Every id is
 * derived from its number (md5), so the same sizes give the same rows.
 */
import type { Queryable, Sql } from '@genesis/common'

export interface ClaimsVolume {
  owners: number
  rewards: number
  claims: number
  /** Live claims among `claims`. */
  live: number
  /** Idempotency keys, a third of them older than the 24 h they are kept. */
  idempotencyKeys: number
  /** Used signatures in the replay table, a third of them expired. */
  replays: number
}

export const REWARDS_PER_CLAIM = 3
export const CONTRACT = '0x1111111111111111111111111111111111111111'

export const ownerAddress = (n: number) => `0x${n.toString(16).padStart(40, '0')}`

/** Drops a table's secondary indexes, runs `load`, and rebuilds them from their own definitions. */
async function withIndexesRebuilt(sql: Queryable, tables: string[], load: () => Promise<void>) {
  const indexes = await sql<{ indexname: string; indexdef: string }[]>`
    select i.indexname, i.indexdef from pg_indexes i
    where i.schemaname = current_schema() and i.tablename = any(${tables})
      and not exists (select from pg_constraint c where c.conname = i.indexname)`
  for (const index of indexes) await sql`drop index ${sql(index.indexname)}`
  await load()
  for (const index of indexes) await sql.unsafe(index.indexdef)
}

export async function seedClaims(sql: Sql, volume: ClaimsVolume): Promise<void> {
  const { owners, rewards, claims, live } = volume
  const claimsPerOwner = Math.ceil(claims / owners)
  if (claimsPerOwner * REWARDS_PER_CLAIM > Math.floor(rewards / owners)) {
    throw new Error(
      `${rewards} rewards over ${owners} owners cannot fill ${claims} claims of ${REWARDS_PER_CLAIM}`,
    )
  }
  const liveEvery = live > 0 ? Math.max(1, Math.floor(claims / live)) : 0
  await sql.begin(async (tx) => {
    await tx`set local synchronous_commit = off`
    await tx`set local maintenance_work_mem = '256MB'`
    await withIndexesRebuilt(tx, ['claim_transactions', 'rewards', 'idempotency_keys'], async () => {
      // claim c (1-based): owner (c - 1) % owners, its j-th claim with j = (c - 1) / owners, rewards
      // k = 3j .. 3j + 2 of that owner, reward k of owner o being reward number o + k * owners + 1
      await tx`
        insert into claim_transactions (id, "user", chain_id, contract, transaction_payload,
          transaction_payload_hash, status, transaction_hash, rewards, expires_at, created_at, updated_at)
        select md5('c' || c)::uuid, '0x' || lpad(to_hex((c - 1) % ${owners}), 40, '0'),
          case when is_live and (c / ${liveEvery || 1}) % 2 = 0 then '80002' else '137' end, ${CONTRACT},
          '0x' || repeat(md5('p' || c), 28) || left(md5('q' || c), 8),
          '0x' || md5('h' || c) || md5('i' || c),
          case when is_live then (case when (c / ${liveEvery || 1}) % 4 < 2 then 'claimed' else 'pending' end)
               when c % 20 < 17 then 'successful' else 'failed' end,
          case when is_live and (c / ${liveEvery || 1}) % 4 >= 2 or not is_live and c % 20 < 17
               then '0x' || md5('t' || c) || md5('u' || c) end,
          array(select md5('r' || ((c - 1) % ${owners} + (((c - 1) / ${owners}) * ${REWARDS_PER_CLAIM} + k) * ${owners} + 1))::uuid
                from generate_series(0, ${REWARDS_PER_CLAIM - 1}) as k),
          case when is_live then now() + interval '1 hour' else created + interval '1 hour' end,
          created, created + interval '5 minutes'
        from generate_series(1, ${claims}::int) as c,
          lateral (select ${liveEvery} > 0 and c % ${liveEvery || 1} = 0 and c / ${liveEvery || 1} <= ${live} as is_live,
                          now() - interval '2 hours' - (${claims}::int - c) * (interval '730 days' / ${claims}::int) as created) as s`
      await tx`
        insert into rewards (id, "user", chain_id, contract, item_id, campaign, claim_transaction_id,
          created_at, updated_at)
        select md5('r' || r)::uuid, '0x' || lpad(to_hex(o), 40, '0'),
          case when c is not null and c % ${liveEvery || 1} = 0 and ${liveEvery} > 0 and c / ${liveEvery || 1} <= ${live}
                 and (c / ${liveEvery || 1}) % 2 = 0 then '80002' else '137' end,
          ${CONTRACT}, r, case when r % 3 = 0 then 'launch-week' end,
          case when c is not null then md5('c' || c)::uuid end,
          now() - interval '3 hours' - (${rewards}::int - r) * (interval '730 days' / ${rewards}::int),
          now() - interval '3 hours' - (${rewards}::int - r) * (interval '730 days' / ${rewards}::int)
        from generate_series(1, ${rewards}::int) as r,
          lateral (select (r - 1) % ${owners} as o, (r - 1) / ${owners} as k) as ok,
          lateral (select case when k < ${claimsPerOwner * REWARDS_PER_CLAIM}
                                 and (k / ${REWARDS_PER_CLAIM}) * ${owners} + o + 1 <= ${claims}
                               then (k / ${REWARDS_PER_CLAIM}) * ${owners} + o + 1 end as c) as pointed`
      // checked at once, so that no trigger event is pending when the indexes are rebuilt
      await tx`set constraints all immediate`
      await tx`
        insert into idempotency_keys ("user", key, request_hash, claim_transaction_id, created_at)
        select '0x' || lpad(to_hex((c - 1) % ${owners}), 40, '0'), md5('k' || i), md5('h' || i), md5('c' || c)::uuid,
          now() - (i % 36) * interval '1 hour'
        from generate_series(1, ${volume.idempotencyKeys}::int) as i,
          lateral (select ${claims}::int - (i - 1) % ${claims}::int as c) as x`
    })
    await tx`
      insert into signed_fetch_replays (signature, expires_at)
      select md5('s' || i) || md5('t' || i), now() + (i % 450 - 150) * interval '1 second'
      from generate_series(1, ${volume.replays}::int) as i
      on conflict do nothing`
  })
  await sql`vacuum analyze claim_transactions, rewards, idempotency_keys, signed_fetch_replays`
}
