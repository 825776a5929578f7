import { type Static, Type } from '@sinclair/typebox'
import { Address, Nullable, Uuid } from '../index.js'
import { ChainId, DateTime, ItemId } from './primitives.js'

export const MAX_REWARDS_PER_GRANT = 1000

export const Reward = Type.Object(
  {
    id: Uuid,
    user: Address,
    chain_id: ChainId,
    contract: Address,
    item_id: ItemId,
    campaign: Nullable(Type.String()),
    claimable: Type.Boolean({ description: 'true while the reward is in no live claim' }),
    claim_transaction_id: Nullable(Uuid),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Reward' },
)
export type Reward = Static<typeof Reward>

export const RewardGrant = Type.Object(
  {
    id: Type.Optional(
      Type.String({ format: 'uuid', description: 'Client-chosen id: granting it again is a no-op' }),
    ),
    user: Address,
    chain_id: ChainId,
    contract: Address,
    item_id: ItemId,
    campaign: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 200, examples: ['launch-week'] })),
    ),
  },
  { additionalProperties: false },
)
export type RewardGrant = Static<typeof RewardGrant>

export const GrantRewardsBody = Type.Object(
  { rewards: Type.Array(RewardGrant, { minItems: 1, maxItems: MAX_REWARDS_PER_GRANT }) },
  { additionalProperties: false },
)
export type GrantRewardsBody = Static<typeof GrantRewardsBody>
