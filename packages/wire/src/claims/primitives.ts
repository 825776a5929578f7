import { type Static, Type } from '@sinclair/typebox'
import { Address, HINT, PageQuery } from '../index.js'

/** A string enum as JSON Schema `enum` (ajv then names the allowed values, unlike a union of literals). */
const StringEnum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>(Type.String({ enum: [...values], description }))

/** The chains the service accepts, as decimal strings. */
export const CHAIN_IDS = ['1', '3', '4', '5', '42', '137', '80001', '80002', '11155111'] as const
export type ChainIdValue = (typeof CHAIN_IDS)[number]

export const ChainId = StringEnum(CHAIN_IDS, `Chain id as a decimal string, one of ${CHAIN_IDS.join(', ')}`)

export const CLAIM_STATUSES = ['claimed', 'pending', 'successful', 'failed'] as const
export type ClaimStatus = (typeof CLAIM_STATUSES)[number]

export const ClaimStatusSchema = StringEnum(
  CLAIM_STATUSES,
  'claimed → pending → successful | failed; a claimed claim past expires_at reads as failed',
)

export const TransactionHash = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  description: 'A transaction hash: 0x and 64 hex digits (answers are lower-case)',
  examples: ['0x5f0c1b0d8f2e7c43a1f7b2d6c3e4a5b6c7d8e9f00112233445566778899aabbc'],
})

export const UINT256_MAX = (1n << 256n) - 1n

export const ItemId = Type.String({
  pattern: '^[0-9]{1,78}$',
  description: 'The item id on the collection contract: a uint256 as a decimal string',
  examples: ['0', '42'],
})

export const DateTime = Type.String({ format: 'date-time' })

/** A page of one user's records: a signed caller's own; the operator names whose with `user` (admin only). */
export const UserPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    // No example: /docs would fill it in, and the operator would read an empty page of a stranger.
    user: Type.Optional(
      Type.String({
        pattern: Address.pattern,
        [HINT]: Address[HINT],
        description:
          'Whose records: required with the operator token; a signed caller leaves it out (or names itself)',
      }),
    ),
  }),
])
export type UserPageQuery = Static<typeof UserPageQuery>
