import type { Sql } from '@genesis/common'
import type { Contribution } from '@genesis/wire/land'

/** An address's contributions in the order they were recorded; land_count as a string (README "Shapes"). */
export function contributionsOf(sql: Sql, address: string): Promise<Contribution[]> {
  return sql<Contribution[]>`
    select address, district_id::text as district_id, land_count::text as land_count
    from contributions where address = ${address} order by id`
}
