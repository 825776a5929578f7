import { type Static, Type } from '@sinclair/typebox'
import { Address, Nullable, Uuid } from '../index.js'
import { ChainId, ClaimStatusSchema, DateTime, TransactionHash } from './primitives.js'

export const MAX_REWARDS_PER_CLAIM = 100

export const ClaimTransaction = Type.Object(
  {
    id: Uuid,
    user: Address,
    chain_id: ChainId,
    contract: Address,
    transaction_payload: Type.String({
      description: 'Calldata of claim(voucher, signature) for the wallet to send',
    }),
    transaction_payload_hash: Type.String({ description: 'keccak256 of transaction_payload' }),
    status: ClaimStatusSchema,
    rewards: Type.Array(Uuid, { description: 'Reward ids, in the order of the request' }),
    transaction_hash: Nullable(TransactionHash),
    expires_at: DateTime,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'ClaimTransaction' },
)
export type ClaimTransaction = Static<typeof ClaimTransaction>

export const CreateClaimBody = Type.Object(
  {
    rewards: Type.Array(Uuid, {
      minItems: 1,
      maxItems: MAX_REWARDS_PER_CLAIM,
      uniqueItems: true,
      description: `1 to ${MAX_REWARDS_PER_CLAIM} distinct ids of the caller's rewards, same chain and contract`,
    }),
  },
  { additionalProperties: false },
)
export type CreateClaimBody = Static<typeof CreateClaimBody>

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'Retry-safe create: the same key and body give back the same claim (24 h)',
    }),
  ),
})

export const ClaimParams = Type.Object({ id: Uuid })

/** Owner: `{ transaction_hash }` moves the claim to pending. Admin: `{ status }` settles it. */
export const PatchClaimBody = Type.Object(
  {
    transaction_hash: Type.Optional(TransactionHash),
    status: Type.Optional(ClaimStatusSchema),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type PatchClaimBody = Static<typeof PatchClaimBody>
