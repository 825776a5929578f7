import type { Sql } from '@genesis/common'
import { type Queryable, uniqueViolation } from '@genesis/common'
import type { PublishBody } from '@genesis/wire/collections'
import type { TypedDataDomain } from 'ethers'
import type { ChainReader } from '../chain/chain-reader.js'
import { type CollectionRow, findCollection, lockCollection, markPublished } from '../db/collections.js'
import { assignBlockchainItemIds, type ItemRow, listItems, submitItems } from '../db/items.js'
import { CHEQUE_DIGEST_INDEX } from '../db/keys.js'
import { hasAcceptedTos, insertCheque } from '../db/publication.js'
import {
  chequeAlreadyUsed,
  collectionNotFound,
  collectionPublished,
  invalidCheque,
  invalidField,
  invalidItems,
  itemsWaitingApproval,
  notAllowed,
  notDeployed,
  notOwner,
  tosNotAccepted,
} from '../errors.js'
import { canonicalSignature, chequeDigest, recoverChequeSigner } from './cheque.js'
import { type Access, roles } from './guards.js'
import { askedManager, managesThirdParty } from './third-party-managers.js'

/** What publishing needs: the database, who may publish, the chain reader and the cheques' domain. */
export interface Publication extends Access {
  sql: Sql
  chain: ChainReader | null
  registryDomain: TypedDataDomain
}

function checkDistinct(itemIds: string[]): string[] {
  const ids = itemIds.map((id) => id.toLowerCase())
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i)
  if (duplicates.length > 0) {
    throw invalidItems(`itemIds lists some items more than once: ${[...new Set(duplicates)].join(', ')}`, {
      duplicates: [...new Set(duplicates)],
    })
  }
  return ids
}

function unknownItems(ids: string[], items: ItemRow[]): string[] {
  const known = new Set(items.map((i) => i.id))
  return ids.filter((id) => !known.has(id))
}

/** Standard: the owner deploys the contract with every item, so the list must be exactly its items. */
async function publishStandard(
  tx: Queryable,
  ctx: Publication,
  caller: string,
  row: CollectionRow,
  ids: string[],
  deployment: Deployment | null,
): Promise<void> {
  if (!roles(ctx, caller, row).owner) throw notAllowed('the owner of the collection', 'publish it')
  if (row.is_published) throw collectionPublished(row.id)
  if (!(await hasAcceptedTos(tx, row.id, 'publish_collection_tos'))) {
    throw tosNotAccepted(row.id)
  }
  const items = await listItems(tx, row.id)
  const unknown = unknownItems(ids, items)
  const requested = new Set(ids)
  const missing = items.filter((i) => !requested.has(i.id)).map((i) => i.id)
  if (unknown.length > 0 || missing.length > 0) {
    throw invalidItems('itemIds must be exactly the items of the collection', { missing, unknown })
  }
  if (ctx.chain) {
    // Anyone may deploy at the collection's address through the factory (its salt is no secret) and
    // would own the contract: publish only on the contract the collection's owner deployed. The chain was
    // asked before the transaction, about this same address (a collection's address never changes).
    if (deployment?.address !== row.contract_address) {
      throw new Error(`publish: the chain was not asked about ${row.contract_address} before the transaction`)
    }
    if (!deployment.hasCode) throw notDeployed(deployment.address)
    if (deployment.owner !== row.eth_address)
      throw notOwner(deployment.address, deployment.owner, row.eth_address)
  }
  const now = ctx.now()
  await assignBlockchainItemIds(tx, row.id, now)
  await markPublished(tx, row.id, now)
}

/** Third party: a manager sends items to review, paying their slots with a signed cheque. */
async function publishThirdParty(
  tx: Queryable,
  ctx: Publication,
  caller: string,
  row: CollectionRow,
  ids: string[],
  cheque: PublishBody['cheque'],
): Promise<void> {
  const thirdPartyId = row.third_party_id!
  if (!(await managesThirdParty(ctx, tx, thirdPartyId, caller, row.third_party_managers))) {
    throw notAllowed(`a manager of the third party ${thirdPartyId}`, 'publish its items')
  }
  if (!cheque) throw invalidField('body.cheque', 'is required to publish a third-party collection')
  const items = await listItems(tx, row.id)
  const unknown = unknownItems(ids, items)
  if (unknown.length > 0) {
    throw invalidItems(`Some items are not items of collection ${row.id}: ${unknown.join(', ')}`, { unknown })
  }
  if (cheque.qty !== ids.length) {
    throw invalidCheque('body.cheque.qty', `must be the number of items published (${ids.length})`)
  }
  if (recoverChequeSigner(ctx.registryDomain, thirdPartyId, cheque) !== caller) {
    throw invalidCheque(
      'body.cheque.signature',
      `is not the caller's EIP-712 ConsumeSlots signature for ${thirdPartyId}`,
    )
  }
  const requested = new Set(ids)
  const waiting = items
    .filter((i) => requested.has(i.id) && i.submitted_content_hash !== null)
    .map((i) => i.id)
  if (waiting.length > 0) {
    throw itemsWaitingApproval(waiting)
  }
  const now = ctx.now()
  await insertCheque(tx, {
    qty: cheque.qty,
    salt: cheque.salt.toLowerCase(),
    // valid, since the signer was recovered from it
    signature: canonicalSignature(cheque.signature)!,
    digest: chequeDigest(ctx.registryDomain, thirdPartyId, cheque),
    collection_id: row.id,
    third_party_id: thirdPartyId,
    signer: caller,
    now,
  })
  await submitItems(tx, ids, now)
  await markPublished(tx, row.id, now)
}

/** What the chain says of a standard collection's contract: deployed there, and by whom. */
interface Deployment {
  address: string
  hasCode: boolean
  owner: string | null
}

/**
 * With RPC_URL, what the chain says before the transaction begins: a standard collection's contract (only
 * once the cheap checks the owner can fail pass, so a stranger's publish costs no chain call), or whether the
 * caller manages a third-party collection's third party.
 */
async function askChainFirst(ctx: Publication, id: string, caller: string) {
  if (!ctx.chain) return { ctx, deployment: null }
  const row = await findCollection(ctx.sql, id)
  if (!row) return { ctx, deployment: null }
  if (row.third_party_id !== null)
    return { ctx: await askedManager(ctx, row.third_party_id, caller), deployment: null }
  if (!roles(ctx, caller, row).owner || row.is_published) return { ctx, deployment: null }
  const address = row.contract_address!
  const hasCode = await ctx.chain.hasCode(address)
  const owner = hasCode ? await ctx.chain.contractOwner(address) : null
  return { ctx, deployment: { address, hasCode, owner } }
}

/** POST /v1/collections/{id}/publish, under the collection's row lock. */
export async function publishCollection(
  publication: Publication,
  caller: string,
  id: string,
  body: PublishBody,
): Promise<void> {
  const ids = checkDistinct(body.itemIds)
  const { ctx, deployment } = await askChainFirst(publication, id, caller)
  try {
    await ctx.sql.begin(async (tx) => {
      const row = await lockCollection(tx, id)
      if (!row) throw collectionNotFound(id)
      if (row.third_party_id === null) await publishStandard(tx, ctx, caller, row, ids, deployment)
      else await publishThirdParty(tx, ctx, caller, row, ids, body.cheque)
    })
  } catch (error) {
    const violated = uniqueViolation(error)
    if (violated === CHEQUE_DIGEST_INDEX || violated === 'slot_usage_cheques_signature_key') {
      throw chequeAlreadyUsed()
    }
    throw error
  }
}
