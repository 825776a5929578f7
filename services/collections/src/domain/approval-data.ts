import type { Sql } from '@genesis/common'
import type { ApprovalData } from '@genesis/wire/collections'
import type { TypedDataDomain } from 'ethers'
import type { ChainReader } from '../chain/chain-reader.js'
import { findCollection } from '../db/collections.js'
import { listItems } from '../db/items.js'
import { latestCheque } from '../db/publication.js'
import { collectionNotFound, notAllowed, notPublished, notThirdParty } from '../errors.js'
import { chequeDigest } from './cheque.js'
import { contentHashesRoot } from './merkle.js'

/** What the approval data needs: the database, the committee, the chain reader and the cheques' domain. */
export interface ApprovalDataDeps {
  sql: Sql
  committee: ReadonlySet<string>
  chain: ChainReader | null
  registryDomain: TypedDataDomain
}

/**
 * GET /v1/collections/{id}/approvalData: what the committee needs to approve a third party's items on chain:
 * the latest cheque, the content hashes sent to review (in creation order) and their Merkle root.
 */
export async function approvalData(ctx: ApprovalDataDeps, caller: string, id: string): Promise<ApprovalData> {
  if (!ctx.committee.has(caller)) throw notAllowed('committee members', 'read approval data')
  const row = await findCollection(ctx.sql, id)
  if (!row) throw collectionNotFound(id)
  if (row.third_party_id === null) {
    throw notThirdParty(id)
  }
  const [cheque, items] = await Promise.all([latestCheque(ctx.sql, id), listItems(ctx.sql, id)])
  const submitted = items.filter((i) => i.submitted_content_hash !== null)
  if (!cheque || submitted.length === 0) {
    throw notPublished(`Collection ${id} has no items sent to review yet`)
  }
  const hashes = submitted.map((i) => i.submitted_content_hash!)
  const chequeWasConsumed = ctx.chain
    ? await ctx.chain.chequeWasConsumed(
        cheque.third_party_id,
        chequeDigest(ctx.registryDomain, cheque.third_party_id, cheque),
      )
    : false
  return {
    cheque: { qty: cheque.qty, salt: cheque.salt, signature: cheque.signature },
    content_hashes: Object.fromEntries(submitted.map((i) => [i.id, i.submitted_content_hash!])),
    chequeWasConsumed,
    root: contentHashesRoot(hashes),
  }
}
