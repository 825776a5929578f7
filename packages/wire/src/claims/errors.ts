import type { GenericErrorCode } from '../errors.js'

/** The claims service's own error codes; statuses and meanings in its README's "Error codes". */
export const CLAIMS_ERROR_CODES = [
  'chain_not_configured',
  'idempotency_key_reused',
  'invalid_transition',
  'mixed_rewards',
  'reward_already_claimed',
  'reward_id_conflict',
  'reward_not_found',
  'voucher_live',
  'voucher_not_redeemed',
] as const
export type ClaimsErrorCode = GenericErrorCode | (typeof CLAIMS_ERROR_CODES)[number]
