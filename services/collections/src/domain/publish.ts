import { BadRequestError, ConflictError } from '@genesis/common'
import type { Context } from '../context.js'
import { type CollectionRow, lockCollection, markPublished } from '../db/collections.js'
import { assignBlockchainItemIds, type ItemRow, listItems, submitItems } from '../db/items.js'
import { hasAcceptedTos, insertCheque } from '../db/publication.js'
import { type Queryable, uniqueViolation } from '../db/queryable.js'
import { collectionNotFound, collectionPublished, invalidField, notAllowed } from '../errors.js'
import type { PublishBody } from '../schemas/publication.js'
import { recoverChequeSigner } from './cheque.js'
import { roles } from './guards.js'

function checkDistinct(itemIds: string[]): string[] {
  const ids = itemIds.map((id) => id.toLowerCase())
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i)
  if (duplicates.length > 0) {
    throw new BadRequestError(
      `itemIds lists some items more than once: ${[...new Set(duplicates)].join(', ')}`,
      {
        code: 'invalid_items',
        data: { duplicates: [...new Set(duplicates)] },
      },
    )
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
  ctx: Context,
  caller: string,
  row: CollectionRow,
  ids: string[],
): Promise<void> {
  if (!roles(ctx, caller, row).owner) throw notAllowed('the owner of the collection', 'publish it')
  if (row.is_published) throw collectionPublished(row.id)
  if (!(await hasAcceptedTos(tx, row.id, 'publish_collection_tos'))) {
    throw new ConflictError(`The terms of service were not accepted for collection ${row.id}`, {
      code: 'tos_not_accepted',
    })
  }
  const items = await listItems(tx, row.id)
  const unknown = unknownItems(ids, items)
  const requested = new Set(ids)
  const missing = items.filter((i) => !requested.has(i.id)).map((i) => i.id)
  if (unknown.length > 0 || missing.length > 0) {
    throw new BadRequestError('itemIds must be exactly the items of the collection', {
      code: 'invalid_items',
      data: { missing, unknown },
    })
  }
  if (ctx.chain && !(await ctx.chain.hasCode(row.contract_address!))) {
    throw new ConflictError(`No contract is deployed at ${row.contract_address} yet`, {
      code: 'not_deployed',
    })
  }
  const now = ctx.now()
  await assignBlockchainItemIds(tx, row.id, now)
  await markPublished(tx, row.id, now)
}

/** Third party: a manager sends items to review, paying their slots with a signed cheque. */
async function publishThirdParty(
  tx: Queryable,
  ctx: Context,
  caller: string,
  row: CollectionRow,
  ids: string[],
  cheque: PublishBody['cheque'],
): Promise<void> {
  if (!row.third_party_managers.includes(caller)) {
    throw notAllowed(`a manager of the third party ${row.third_party_id}`, 'publish its items')
  }
  if (!cheque) throw invalidField('body.cheque', 'is required to publish a third-party collection')
  const items = await listItems(tx, row.id)
  const unknown = unknownItems(ids, items)
  if (unknown.length > 0) {
    throw new BadRequestError(`Some items are not items of collection ${row.id}: ${unknown.join(', ')}`, {
      code: 'invalid_items',
      data: { unknown },
    })
  }
  if (cheque.qty !== ids.length) {
    throw invalidField(
      'body.cheque.qty',
      `must be the number of items published (${ids.length})`,
      'invalid_cheque',
    )
  }
  const thirdPartyId = row.third_party_id!
  if (recoverChequeSigner(ctx.registryDomain, thirdPartyId, cheque) !== caller) {
    throw invalidField(
      'body.cheque.signature',
      `is not the caller's EIP-712 ConsumeSlots signature for ${thirdPartyId}`,
      'invalid_cheque',
    )
  }
  const requested = new Set(ids)
  const waiting = items
    .filter((i) => requested.has(i.id) && i.submitted_content_hash !== null)
    .map((i) => i.id)
  if (waiting.length > 0) {
    throw new ConflictError(`Some items are already waiting for approval: ${waiting.join(', ')}`, {
      code: 'items_waiting_approval',
      data: { items: waiting },
    })
  }
  const now = ctx.now()
  await insertCheque(tx, {
    ...cheque,
    collection_id: row.id,
    third_party_id: thirdPartyId,
    signer: caller,
    now,
  })
  await submitItems(tx, ids, now)
  await markPublished(tx, row.id, now)
}

/** POST /v1/collections/{id}/publish, under the collection's row lock. */
export async function publishCollection(
  ctx: Context,
  caller: string,
  id: string,
  body: PublishBody,
): Promise<void> {
  const ids = checkDistinct(body.itemIds)
  try {
    await ctx.sql.begin(async (tx) => {
      const row = await lockCollection(tx, id)
      if (!row) throw collectionNotFound(id)
      if (row.third_party_id === null) await publishStandard(tx, ctx, caller, row, ids)
      else await publishThirdParty(tx, ctx, caller, row, ids, body.cheque)
    })
  } catch (error) {
    if (uniqueViolation(error) === 'slot_usage_cheques_signature_key') {
      throw new ConflictError('This cheque was already used', { code: 'cheque_already_used' })
    }
    throw error
  }
}
