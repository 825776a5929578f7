import { type Static, Type } from '@sinclair/typebox'
import { MAX_PAGE, Nullable, PagedEnvelope } from '../index.js'
import { ContentHash, DateTime, Id, Name } from './fields.js'
import { MAX_PUBLISH_ITEMS } from './publication.js'

export const ItemType = Type.Union([Type.Literal('wearable'), Type.Literal('emote')])

export const Item = Type.Object({
  id: Id,
  collection_id: Id,
  name: Type.String(),
  type: ItemType,
  content_hash: Type.String(),
  blockchain_item_id: Nullable(
    Type.String({ description: 'Token id in the collection contract, once published' }),
  ),
  created_at: DateTime,
  updated_at: DateTime,
})
export type Item = Static<typeof Item>

export const ItemWrite = Type.Object(
  { id: Id, collection_id: Id, name: Name, type: ItemType, content_hash: ContentHash },
  { additionalProperties: false },
)
export type ItemWrite = Static<typeof ItemWrite>

export const ItemParams = Type.Object({ id: Id })

/**
 * Items a collection holds at most: what one publication takes (a standard collection publishes all its
 * items at once), which also bounds what listing them costs.
 */
export const MAX_ITEMS_PER_COLLECTION = MAX_PUBLISH_ITEMS

/** Items in one page of a collection's list: a collection at its bound is five pages. */
export const MAX_ITEMS_PAGE = 1000

export const ItemsQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_ITEMS_PAGE,
      default: MAX_ITEMS_PAGE,
      description: `Items per page, at most ${MAX_ITEMS_PAGE} (a collection holds at most ${MAX_ITEMS_PER_COLLECTION.toLocaleString('en-US')})`,
    }),
  },
  { additionalProperties: false },
)
export type ItemsQuery = Static<typeof ItemsQuery>

export const ItemsPage = PagedEnvelope(Item)
