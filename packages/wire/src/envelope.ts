import { type Static, type TSchema, Type } from '@sinclair/typebox'

/** Annotation of a schema: what a value refused by its pattern should look like, in words. */
export const HINT = 'x-hint'

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const Address = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'An Ethereum address (checksummed or lower-case); answers are lower-case',
  examples: ['0x004398361d0fad60d7fcf5533d94398ee9fc8ddc'],
  [HINT]: 'expected an Ethereum address: 0x and 40 hex digits',
})
// A pattern as well as the format: ajv's `uuid` format also accepts a `urn:uuid:` prefix.
export const Uuid = Type.String({
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  [HINT]: 'must match format "uuid"',
})

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ ok: Type.Literal(true), data })

const Pagination = Type.Object({
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  total: Type.Integer({ minimum: 0 }),
  pages: Type.Integer({ minimum: 0 }),
})

export const PagedEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ ok: Type.Literal(true), data: Type.Array(item), pagination: Pagination })

export const ErrorEnvelope = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.String(),
    code: Type.String(),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'ErrorEnvelope' },
)
export type ErrorEnvelope = Static<typeof ErrorEnvelope>

const MAX_PAGE_SIZE = 100
/** Far past any real list, and small enough that (page - 1) * limit stays a safe integer offset. */
export const MAX_PAGE = 1_000_000

/** `page` from 1 (default 1) and `limit` 1..100 (default 20), for list routes. */
export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 }),
})
export type PageQuery = Static<typeof PageQuery>
