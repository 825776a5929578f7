import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  UnauthorizedError,
} from '@genesis/common'

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

/** 409 voucher_live: the operator may not fail a claim whose voucher may still be redeemed, or was. */
export const voucherLive = (reason: 'redeemable' | 'redeemed' | 'not_expired') =>
  new ConflictError(
    reason === 'redeemed'
      ? 'The chain shows this voucher redeemed: the claim cannot fail'
      : 'The voucher may still be redeemed: the claim can fail only once the chain shows it expired unused',
    { code: 'voucher_live', data: { reason } },
  )

/** 409 voucher_not_redeemed: the operator may not call a claim successful that the chain shows unredeemed. */
export const voucherNotRedeemed = () =>
  new ConflictError('The chain does not show this voucher redeemed (in a final block)', {
    code: 'voucher_not_redeemed',
  })

/** 503: the chain could not be read to check an operator's move; nothing was changed. */
export const chainUnavailable = (chainId: string) =>
  new ServiceUnavailableError(`Chain ${chainId} could not be read; retry later`)

/** 400 chain_not_configured: in production a grant needs the chain's RPC URL, to see its vouchers redeemed. */
export const chainNotConfigured = (chainIds: string[]) =>
  new BadRequestError(
    `No RPC URL is configured for chain ${chainIds.join(', ')}: its claims could not be settled safely`,
    { code: 'chain_not_configured', data: { chain_ids: chainIds } },
  )

/** 400: a list of request problems (path and reason), as the schemas report them. */
export const invalidRequest = (
  errors: { path: string; message: string }[],
  options: { message?: string; extra?: object } = {},
) =>
  new BadRequestError(options.message ?? errors.map((e) => `${e.path} ${e.message}`).join('; '), {
    data: { errors, ...options.extra },
  })

/** 400: a create naming a reward twice. */
export const repeatedRewards = (rewards: string[]) =>
  invalidRequest([{ path: 'body.rewards', message: 'must not repeat an id' }], {
    message: `body.rewards must not repeat an id: ${rewards.join(', ')}`,
    extra: { rewards },
  })

/** 400: a PATCH with neither a hash nor a status. */
export const nothingToChange = () =>
  invalidRequest([{ path: 'body', message: 'must have transaction_hash or status' }], {
    message: 'Send transaction_hash (the owner) or status (the operator)',
  })

/** 400: an operator moving a claim to pending without its hash. */
export const pendingNeedsHash = () =>
  invalidRequest([{ path: 'body.transaction_hash', message: 'is required' }], {
    message: 'Moving a claim to pending needs its transaction_hash',
  })

/** 400: the operator listing records without naming whose. */
export const operatorNamesUser = () =>
  invalidRequest([{ path: 'query.user', message: 'is required with the admin token' }], {
    message: 'The operator must name the user: ?user=0x…',
  })

/** 403: the owner asking for a status only the operator sets. */
export const ownerSetsStatus = (status: string) =>
  new ForbiddenError(`Only the operator may set status "${status}"; the owner reports transaction_hash`)

/** 403: a signed caller listing somebody else's records. */
export const notYourRecords = () =>
  new ForbiddenError('A signed caller may list only their own records (leave out ?user or use your address)')

/** 403: a signed caller on an operator-only route. */
export const operatorOnly = () =>
  new ForbiddenError('Only the operator (admin bearer token) may call this route')

/** 401: an Authorization header that is not "Bearer <token>". */
export const malformedAuthorization = () =>
  new UnauthorizedError('Authorization must be "Bearer <token>"', { data: { reason: 'malformed' } })

/** 401: admin calls while no admin token is configured. */
export const adminDisabled = () =>
  new UnauthorizedError('Admin calls are disabled: CLAIMS_ADMIN_TOKEN is not configured', {
    data: { reason: 'admin_disabled' },
  })

/** 401: a bearer token that is not the admin token. */
export const invalidAdminToken = () =>
  new UnauthorizedError('Invalid admin token', { data: { reason: 'invalid_token' } })

/** 401: neither a signature nor (where accepted) the admin token. */
export const missingAuthentication = (userAccepted = false) =>
  new UnauthorizedError(
    userAccepted
      ? 'Missing authentication: sign the request (signed fetch) or send the admin bearer token'
      : 'Missing authentication: send Authorization: Bearer <CLAIMS_ADMIN_TOKEN>',
    { data: { reason: 'missing' } },
  )
