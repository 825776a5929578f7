import { Nullable } from '@genesis/common'
import { type Static, Type } from '@sinclair/typebox'
import { ContentHash, DateTime, Id, Name } from './fields.js'

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
