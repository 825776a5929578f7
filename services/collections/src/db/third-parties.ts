import type { Queryable } from '@genesis/common'

/**
 * The managers of a third party, registering it with `firstManager` as its only manager when it is unknown.
 * Concurrent first uses agree: the insert waits for the other one and then reads its row.
 */
export async function registerOrGetThirdParty(
  tx: Queryable,
  id: string,
  firstManager: string,
  now: Date,
): Promise<{ managers: string[]; registered: boolean }> {
  const inserted = await tx`
    insert into third_parties (id, managers, created_at, updated_at)
    values (${id}, ${tx.array([firstManager])}::text[], ${now}, ${now})
    on conflict (id) do nothing
    returning id`
  const [row] = await tx<
    { managers: string[] }[]
  >`select managers from third_parties where id = ${id} for share`
  return { managers: row?.managers ?? [], registered: inserted.length > 0 }
}

/**
 * Keeps what the chain answered about one manager (with RPC_URL the stored managers are only a record of
 * those answers, read by an address's list of collections). Writes only when the record differs.
 */
export async function recordManagerAnswer(
  sql: Queryable,
  thirdPartyId: string,
  address: string,
  manages: boolean,
  now: Date,
): Promise<void> {
  if (manages) {
    await sql`
      update third_parties set managers = array_append(managers, ${address}::text), updated_at = ${now}
      where id = ${thirdPartyId} and not managers @> array[${address}]::text[]`
  } else {
    await sql`
      update third_parties set managers = array_remove(managers, ${address}::text), updated_at = ${now}
      where id = ${thirdPartyId} and managers @> array[${address}]::text[]`
  }
}

/** The third parties whose stored managers include the address. */
export async function thirdPartiesListing(sql: Queryable, address: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from third_parties where managers @> array[${address}]::text[] order by id`
  return rows.map((r) => r.id)
}
