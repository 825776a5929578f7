import type { Sql } from '@genesis/common'
import { type Queryable, uniqueViolation } from '@genesis/common'
import { type ItemWrite, MAX_ITEMS_PER_COLLECTION } from '@genesis/wire/collections'
import type { CollectionRow } from '../db/collections.js'
import {
  countItems,
  deleteItem,
  findItem,
  type ItemRow,
  insertItem,
  lockItem,
  updateItem,
} from '../db/items.js'
import {
  collectionFull,
  collectionPublished,
  invalidField,
  itemCollectionMismatch,
  itemNotFound,
  itemPublished,
} from '../errors.js'
import { type Access, askFirst, lockEditableCollection } from './guards.js'

/** What writing items needs: the database, and who may edit the collection. */
export interface ItemRules extends Access {
  sql: Sql
}

/**
 * Items follow their collection's rules (owner or manager, not locked). A standard collection is frozen
 * once published; a third-party collection keeps taking new items, but an item sent to review is frozen.
 */
async function lockItemCollection(
  tx: Queryable,
  ctx: ItemRules,
  caller: string,
  collectionId: string,
  action: string,
) {
  return lockEditableCollection(tx, ctx, collectionId, caller, { action, allowPublished: true })
}

function checkItemEditable(collection: CollectionRow, item: ItemRow | null) {
  if (collection.is_published && collection.third_party_id === null) throw collectionPublished(collection.id)
  if (item?.submitted_content_hash) {
    throw itemPublished(item.id)
  }
}

/** PUT /v1/items/{id}. */
export async function writeItem(
  rules: ItemRules,
  caller: string,
  pathId: string,
  body: ItemWrite,
): Promise<void> {
  const id = pathId.toLowerCase()
  if (body.id.toLowerCase() !== id) throw invalidField('body.id', `must be the id of the path (${pathId})`)
  const collectionId = body.collection_id.toLowerCase()
  const write = {
    id,
    collection_id: collectionId,
    name: body.name.trim(),
    type: body.type,
    content_hash: body.content_hash,
  }
  const ctx = await askFirst(rules, rules.sql, collectionId, caller)
  try {
    await ctx.sql.begin(async (tx) => {
      const collection = await lockItemCollection(tx, ctx, caller, collectionId, 'change its items')
      const existing = await lockItem(tx, id)
      if (existing && existing.collection_id !== collectionId) {
        throw itemCollectionMismatch(id)
      }
      checkItemEditable(collection, existing)
      const now = ctx.now()
      if (existing) await updateItem(tx, { ...write, now })
      else {
        // Counted under the collection's row lock, which every write of its items takes first: concurrent
        // creates cannot overshoot the bound.
        if ((await countItems(tx, collectionId)) >= MAX_ITEMS_PER_COLLECTION) {
          throw collectionFull(collectionId, MAX_ITEMS_PER_COLLECTION)
        }
        await insertItem(tx, { ...write, now })
      }
    })
  } catch (error) {
    if (uniqueViolation(error) === 'items_pkey') {
      throw itemCollectionMismatch(id)
    }
    throw error
  }
}

/** DELETE /v1/items/{id}. */
export async function removeItem(rules: ItemRules, caller: string, id: string): Promise<void> {
  const found = await findItem(rules.sql, id)
  if (!found) throw itemNotFound(id)
  const ctx = await askFirst(rules, rules.sql, found.collection_id, caller)
  await ctx.sql.begin(async (tx) => {
    const collection = await lockItemCollection(tx, ctx, caller, found.collection_id, 'delete its items')
    // Read again under the collection's lock: it may have gone meanwhile.
    const item = await lockItem(tx, id)
    if (!item || item.collection_id !== collection.id) throw itemNotFound(id)
    checkItemEditable(collection, item)
    await deleteItem(tx, id)
  })
}
