import { type Static, Type } from '@sinclair/typebox'
import { Address, BIDI_CONTROLS, C0_CONTROLS, C1_CONTROLS, Nullable, PageQuery } from '../index.js'
import { CollectionUrn, DateTime, Id, Name } from './fields.js'

export const MAX_MEMBERS = 50

/**
 * A collection as answered. The committee, the owner, managers and minters get the full view; anybody
 * else gets the public view, which leaves out `salt`, `forum_link`, `forum_id` and `lock`.
 */
export const Collection = Type.Object({
  id: Id,
  name: Type.String(),
  eth_address: Type.String({ description: 'The owner (creator), lower-case' }),
  salt: Type.Optional(
    Nullable(Type.String({ description: 'CREATE2 salt; null for a third-party collection' })),
  ),
  contract_address: Nullable(
    Type.String({ description: 'CREATE2 address; null for a third-party collection' }),
  ),
  urn: Type.String(),
  is_published: Type.Boolean(),
  is_approved: Type.Boolean(),
  minters: Type.Array(Type.String()),
  managers: Type.Array(Type.String()),
  forum_link: Type.Optional(Nullable(Type.String())),
  forum_id: Type.Optional(Nullable(Type.Integer())),
  lock: Type.Optional(
    Nullable(
      Type.String({ format: 'date-time', description: 'Start of the active lock, null when not locked' }),
    ),
  ),
  reviewed_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
})
export type Collection = Static<typeof Collection>

/** How deep `page` reads in the collection lists: page × limit rows at most. Further, `cursor`. */
export const MAX_PAGED_ROWS = 10_000

/** The paging of a collection list: `page` (bounded) or `cursor`, the keyset of the previous page's last row. */
export const CursorPagination = Type.Object({
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  total: Type.Integer({ minimum: 0 }),
  pages: Type.Integer({ minimum: 0 }),
  next_cursor: Nullable(
    Type.String({
      description:
        'The next page as `?cursor=` (same filters and limit), however deep; null on the last page',
    }),
  ),
})

/** A page of collections as answered. */
export const CollectionPage = Type.Object({
  ok: Type.Literal(true),
  data: Type.Array(Collection),
  pagination: CursorPagination,
})
export type CollectionPage = Static<typeof CollectionPage>

const Members = Type.Array(Address, { maxItems: MAX_MEMBERS })

export const CollectionWrite = Type.Object(
  {
    id: Id,
    name: Name,
    urn: Type.Optional(Nullable(CollectionUrn)),
    managers: Type.Optional(Members),
    minters: Type.Optional(Members),
  },
  { additionalProperties: false },
)
export type CollectionWrite = Static<typeof CollectionWrite>

export const CollectionParams = Type.Object({ id: Id })
export const AddressParams = Type.Object({ address: Address })

export const Search = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: `^[^${C0_CONTROLS}${C1_CONTROLS}${BIDI_CONTROLS}]+$`,
  description: 'Case-insensitive substring of the name (no control characters or bidi overrides)',
})

export const MAX_PAGE = 1_000_000

/** The shared paging, with a bound on `page` too: a larger offset would overflow the database's bigint. */
export const Paging = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  limit: PageQuery.properties.limit,
})

/** The paging of both collection lists: `page` up to MAX_PAGED_ROWS rows deep, or `cursor`. */
const ListPaging = Type.Object({
  page: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    description: `page × limit at most ${MAX_PAGED_ROWS.toLocaleString('en-US')} (else 400 page_too_deep): deeper pages with cursor (pagination.next_cursor)`,
  }),
  limit: PageQuery.properties.limit,
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[A-Za-z0-9_-]+$',
      description: "A previous page's pagination.next_cursor: the page after it (page is then 1 or left out)",
    }),
  ),
})

/** The review filters of both collection lists. */
const ReviewFilters = {
  is_approved: Type.Optional(Type.Boolean({ description: 'Approved by the committee (or on chain)' })),
  reviewed: Type.Optional(Type.Boolean({ description: 'Decided at least once (`reviewed_at` set)' })),
  pending_review: Type.Optional(Type.Boolean({ description: 'A review is waiting for the committee' })),
}

export const CollectionListQuery = Type.Composite(
  [
    ListPaging,
    Type.Object({
      q: Type.Optional(Search),
      is_published: Type.Optional(Type.Boolean()),
      ...ReviewFilters,
    }),
  ],
  { additionalProperties: false },
)
export type CollectionListQuery = Static<typeof CollectionListQuery>

export const AddressCollectionsQuery = Type.Composite(
  [ListPaging, Type.Object({ is_published: Type.Optional(Type.Boolean()), ...ReviewFilters })],
  { additionalProperties: false },
)
export type AddressCollectionsQuery = Static<typeof AddressCollectionsQuery>

export const AddressesQuery = Type.Composite(
  [
    Paging,
    Type.Object({
      q: Type.Optional(Search),
      is_published: Type.Boolean({ default: true }),
    }),
  ],
  { additionalProperties: false },
)
