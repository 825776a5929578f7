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
