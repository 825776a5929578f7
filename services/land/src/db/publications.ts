import type { Sql } from '@genesis/common'
import type { PublicationStatus } from '../domain/constants.js'
import type { PublicationRecord } from './rows.js'
import { publicationColumns } from './rows.js'

/** A parcel's publications, newest first; `open` means open and not expired, as in the listings. */
export async function publicationsOfParcel(
  sql: Sql,
  assetId: string,
  status: PublicationStatus | undefined,
  now: number,
): Promise<PublicationRecord[]> {
  const filter =
    status === undefined
      ? sql``
      : status === 'open'
        ? sql`and status = 'open' and expires_at > ${now}`
        : sql`and status = ${status}`
  return sql<PublicationRecord[]>`
    select ${publicationColumns(sql)} from publications
    where type = 'parcel' and asset_id = ${assetId} ${filter}
    order by block_time_created_at desc, block_number desc, tx_hash desc`
}

export async function publicationByTxHash(sql: Sql, txHash: string): Promise<PublicationRecord | undefined> {
  const [row] = await sql<PublicationRecord[]>`
    select ${publicationColumns(sql)} from publications where tx_hash = ${txHash.toLowerCase()}`
  return row
}
