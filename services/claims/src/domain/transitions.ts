import { BadRequestError, ForbiddenError, type Sql, uniqueViolation } from '@genesis/common'
import { type ClaimRow, lockClaim, setClaimStatus } from '../db/claim-transactions.js'
import { claimNotFound, invalidTransition, transactionHashInUse } from '../errors.js'
import type { ClaimStatus } from '../schemas/primitives.js'

export type Actor = { kind: 'admin' } | { kind: 'user'; address: string }

export interface ClaimChange {
  status?: ClaimStatus | undefined
  transaction_hash?: string | undefined
}

/** Where each (read) status may go; successful and failed are final. */
const NEXT: Record<ClaimStatus, readonly ClaimStatus[]> = {
  claimed: ['pending', 'successful', 'failed'],
  pending: ['pending', 'successful', 'failed'],
  successful: [],
  failed: [],
}

/** What a change asks for, refused with 400/403 before the claim is even read. */
export function targetOf(actor: Actor, change: ClaimChange): ClaimStatus {
  const target = change.status ?? (change.transaction_hash !== undefined ? 'pending' : undefined)
  if (target === undefined) {
    throw new BadRequestError('Send transaction_hash (the owner) or status (the operator)', {
      data: { errors: [{ path: 'body', message: 'must have transaction_hash or status' }] },
    })
  }
  if (actor.kind === 'user' && target !== 'pending') {
    throw new ForbiddenError(
      `Only the operator may set status "${target}"; the owner reports transaction_hash`,
    )
  }
  if (target === 'pending' && change.transaction_hash === undefined) {
    throw new BadRequestError('Moving a claim to pending needs its transaction_hash', {
      data: { errors: [{ path: 'body.transaction_hash', message: 'is required' }] },
    })
  }
  return target
}

/** Unchanged when the claim is already where the change puts it (a retried PATCH). */
function isNoOp(claim: ClaimRow, target: ClaimStatus, transactionHash: string | undefined) {
  return (
    claim.status === target && (transactionHash === undefined || transactionHash === claim.transaction_hash)
  )
}

/**
 * PATCH /api/claim-transactions/:id. The claim is locked while its status is read and changed, so that
 * concurrent changes (owner, operator, reconciler) apply one after the other.
 */
export async function changeClaim(
  sql: Sql,
  id: string,
  actor: Actor,
  change: ClaimChange,
): Promise<ClaimRow> {
  const target = targetOf(actor, change)
  const transactionHash = change.transaction_hash?.toLowerCase()
  try {
    return await sql.begin(async (tx) => {
      const claim = await lockClaim(tx, id)
      if (!claim || (actor.kind === 'user' && claim.user !== actor.address)) {
        throw claimNotFound(id)
      }
      if (isNoOp(claim, target, transactionHash)) return claim
      if (!NEXT[claim.status].includes(target)) {
        throw invalidTransition(claim.status, target)
      }
      return setClaimStatus(tx, id, { status: target, transactionHash: transactionHash ?? null })
    })
  } catch (error) {
    // the unique index claim_transactions_transaction_hash: one transaction settles one claim
    if (uniqueViolation(error)) throw transactionHashInUse()
    throw error
  }
}
