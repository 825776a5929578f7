import { BadRequestError, ConflictError, NotFoundError } from '@genesis/common'

/**
 * The machine codes this service answers besides the kit's generic ones (bad_request, unauthorized, …),
 * listed with their statuses in the README's "Error codes" table.
 */

/** 404: the claim does not exist, or is somebody else's (which must not leak). */
export const claimNotFound = (id: string) => new NotFoundError(`Claim transaction ${id} not found`)

/** 400 reward_not_found: ids that are not the caller's rewards. */
export const rewardNotFound = (rewards: string[]) =>
  new BadRequestError(`Rewards not found: ${rewards.join(', ')}`, {
    code: 'reward_not_found',
    data: { rewards },
  })

/** 400 mixed_rewards: one claim's rewards must share chain and contract. */
export const mixedRewards = (chainIds: string[], contracts: string[]) =>
  new BadRequestError('All rewards of one claim must share chain_id and contract', {
    code: 'mixed_rewards',
    data: { chain_ids: chainIds, contracts },
  })

/** 400 reward_already_claimed: rewards held by a live claim, listed when known. */
export const rewardAlreadyClaimed = (rewards: string[]) =>
  new BadRequestError(`Rewards already in a live claim: ${rewards.join(', ')}`, {
    code: 'reward_already_claimed',
    data: { rewards },
  })

/** 409 idempotency_key_reused: the user's Idempotency-Key was used with another body. */
export const idempotencyKeyReused = (claimId: string) =>
  new ConflictError('This Idempotency-Key was already used with a different body', {
    code: 'idempotency_key_reused',
    data: { claim_transaction_id: claimId },
  })

/** 409 conflict: the rewards changed between a create's read and its write; a retry answers properly. */
export const rewardsChanged = () =>
  new ConflictError('The rewards changed while the claim was made; retry', { code: 'conflict' })

/** 409 reward_id_conflict: client-chosen reward ids already granted with other content. */
export const rewardIdConflict = (rewards: string[]) =>
  new ConflictError(`Reward ids already granted with different content: ${rewards.join(', ')}`, {
    code: 'reward_id_conflict',
    data: { rewards },
  })

/** 409 invalid_transition: the claim's status cannot move there. */
export const invalidTransition = (from: string, to: string) =>
  new ConflictError(`A ${from} claim cannot become ${to}`, {
    code: 'invalid_transition',
    data: { from, to },
  })

/** 409 transaction_hash_in_use: one transaction settles one claim. */
export const transactionHashInUse = () =>
  new ConflictError('This transaction hash was already reported for another claim', {
    code: 'transaction_hash_in_use',
  })
