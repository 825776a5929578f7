import { type Static, Type } from '@sinclair/typebox'
import { Bytes32, ContentHash, Email, Id, Signature } from './fields.js'

/** Items one publication takes: a standard collection publishes all its items at once. */
export const MAX_PUBLISH_ITEMS = 5_000
/**
 * Terms are accepted for the content about to be published, one hash per item: at most what one
 * publication can take. Bounds the row each acceptance stores.
 */
export const MAX_TOS_HASHES = MAX_PUBLISH_ITEMS

export const TosEvent = Type.Union([
  Type.Literal('publish_collection_tos'),
  Type.Literal('publish_third_party_items_tos'),
])

export const TosBody = Type.Object(
  {
    email: Email,
    event: TosEvent,
    hashes: Type.Array(ContentHash, {
      minItems: 1,
      maxItems: MAX_TOS_HASHES,
      description: `The content hashes of the items to publish, 1 to ${MAX_TOS_HASHES}`,
    }),
  },
  { additionalProperties: false },
)
export type TosBody = Static<typeof TosBody>

export const Cheque = Type.Object(
  {
    qty: Type.Integer({ minimum: 1, maximum: MAX_PUBLISH_ITEMS }),
    salt: Bytes32,
    signature: Signature,
  },
  { additionalProperties: false },
)
export type Cheque = Static<typeof Cheque>

export const PublishBody = Type.Object(
  {
    itemIds: Type.Array(Id, { minItems: 1, maxItems: MAX_PUBLISH_ITEMS }),
    cheque: Type.Optional(Cheque),
  },
  { additionalProperties: false },
)
export type PublishBody = Static<typeof PublishBody>

export const ApprovalData = Type.Object({
  cheque: Type.Object({ qty: Type.Integer(), salt: Type.String(), signature: Type.String() }),
  content_hashes: Type.Record(Type.String(), Type.String(), { description: 'item id → content hash' }),
  chequeWasConsumed: Type.Boolean(),
  root: Type.String({ description: 'Merkle root of the content hashes (@dcl/content-hash-tree)' }),
})
export type ApprovalData = Static<typeof ApprovalData>
