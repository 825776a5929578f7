import type { Queryable } from '@genesis/common'
import type { Cheque } from '@genesis/wire/collections'

export type TosEvent = 'publish_collection_tos' | 'publish_third_party_items_tos'

export interface TosAcceptance {
  collection_id: string
  signer: string
  email: string
  event: TosEvent
  hashes: string[]
  now: Date
}

export async function insertTosAcceptance(tx: Queryable, tos: TosAcceptance): Promise<void> {
  await tx`
    insert into tos_acceptances (collection_id, signer, email, event, hashes, created_at)
    values (${tos.collection_id}, ${tos.signer}, ${tos.email}, ${tos.event}, ${tx.array(tos.hashes)}::text[], ${tos.now})`
}

export async function hasAcceptedTos(
  sql: Queryable,
  collectionId: string,
  event: TosEvent,
): Promise<boolean> {
  const rows = await sql`
    select 1 from tos_acceptances where collection_id = ${collectionId} and event = ${event} limit 1`
  return rows.length > 0
}

export interface StoredCheque extends Cheque {
  third_party_id: string
}

export async function insertCheque(
  tx: Queryable,
  cheque: Cheque & {
    digest: string
    collection_id: string
    third_party_id: string
    signer: string
    now: Date
  },
): Promise<void> {
  await tx`
    insert into slot_usage_cheques (collection_id, third_party_id, signer, qty, salt, signature, digest, created_at)
    values (${cheque.collection_id}, ${cheque.third_party_id}, ${cheque.signer}, ${cheque.qty}, ${cheque.salt},
            ${cheque.signature}, ${cheque.digest}, ${cheque.now})`
}

export async function latestCheque(sql: Queryable, collectionId: string): Promise<StoredCheque | null> {
  const [row] = await sql<StoredCheque[]>`
    select third_party_id, qty, salt, signature from slot_usage_cheques
    where collection_id = ${collectionId} order by id desc limit 1`
  return row ?? null
}
