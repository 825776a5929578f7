import { type Static, Type } from '@sinclair/typebox'
import { BIDI_CONTROLS, C1_CONTROLS, Nullable, PagedEnvelope } from '../index.js'
import { Paging, Search } from './collection.js'
import { DateTime, Id } from './fields.js'

/** A curation record: a request for the committee's review of a collection, and its decision. */
export const Curation = Type.Object({
  id: Id,
  collection_id: Id,
  collection_name: Type.String(),
  kind: Type.Union([Type.Literal('collection'), Type.Literal('items')], {
    description:
      "collection: a published standard collection; items: a third party's items waiting for approval",
  }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
  item_ids: Type.Array(Id, { description: 'The items under review (kind items); empty for kind collection' }),
  requested_by: Type.String({ description: 'The owner or manager who asked for the review, lower-case' }),
  reviewed_by: Nullable(
    Type.String({
      description: 'The deciding committee member; null while pending or when decided on chain',
    }),
  ),
  comment: Nullable(Type.String()),
  created_at: DateTime,
  reviewed_at: Nullable(DateTime),
  updated_at: DateTime,
})
export type Curation = Static<typeof Curation>

/** A page of the committee's queue as answered. */
export const CurationPage = PagedEnvelope(Curation)
export type CurationPage = Static<typeof CurationPage>

export const MAX_COMMENT_LENGTH = 2000

export const DecisionBody = Type.Object(
  {
    comment: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_COMMENT_LENGTH,
        // line breaks and tabs are fine in a comment, other control characters and bidi overrides are not
        pattern: `^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f${C1_CONTROLS}${BIDI_CONTROLS}]+$`,
        description: `The committee's note to the creator, up to ${MAX_COMMENT_LENGTH} characters`,
      }),
    ),
  },
  { additionalProperties: false },
)
export type DecisionBody = Static<typeof DecisionBody>

export const CurationParams = Type.Object({ id: Id })

export const PendingCurationsQuery = Type.Composite([Paging, Type.Object({ q: Type.Optional(Search) })], {
  additionalProperties: false,
})
export type PendingCurationsQuery = Static<typeof PendingCurationsQuery>

export const ForumBody = Type.Object(
  {
    forum_link: Type.String({
      format: 'uri',
      pattern: '^https?://[^\\s]+$',
      maxLength: 2048,
      description: "The review's discussion thread",
      examples: ['https://forum.example.org/t/summer-wearables/1234'],
    }),
    forum_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The thread id' }),
  },
  { additionalProperties: false },
)
export type ForumBody = Static<typeof ForumBody>
