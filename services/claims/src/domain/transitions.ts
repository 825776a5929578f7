import type { Sql } from '@genesis/common'
import type { ClaimStatus } from '@genesis/wire/claims'
import type { DispenserChain, VoucherState } from '../chain/dispenser.js'
import { type ClaimRow, findClaim, lockClaim, setClaimStatus } from '../db/claim-transactions.js'
import {
  chainUnavailable,
  claimNotFound,
  invalidTransition,
  nothingToChange,
  ownerSetsStatus,
  pendingNeedsHash,
  voucherLive,
  voucherNotRedeemed,
} from '../errors.js'

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
  if (target === undefined) throw nothingToChange()
  if (actor.kind === 'user' && target !== 'pending') throw ownerSetsStatus(target)
  if (target === 'pending' && change.transaction_hash === undefined) throw pendingNeedsHash()
  return target
}

/** Unchanged when the claim is already where the change puts it (a retried PATCH). */
function isNoOp(claim: ClaimRow, target: ClaimStatus, transactionHash: string | undefined) {
  return (
    claim.status === target && (transactionHash === undefined || transactionHash === claim.transaction_hash)
  )
}

export interface ChangeContext {
  sql: Sql
  /** The watched chains; the operator's final statuses on them need the chain's proof. */
  chains: Map<string, DispenserChain>
}

/**
 * An operator's final status obeys the chain: `failed` only once the voucher is dead (expired unredeemed
 * at a final block), `successful` only once it is redeemed at one. Without the chain's RPC URL, `failed`
 * waits for expires_at and `successful` is taken on the operator's word. Read before the claim is locked:
 * both proofs are final, so a change meanwhile cannot make them wrong.
 */
async function refuseWithoutProof(
  chains: Map<string, DispenserChain>,
  claim: ClaimRow,
  target: ClaimStatus,
): Promise<void> {
  if (target !== 'failed' && target !== 'successful') return
  if (claim.status === 'successful' || claim.status === 'failed') return
  const chain = chains.get(claim.chain_id)
  if (!chain) {
    if (target === 'failed' && claim.expires_at.getTime() > Date.now()) throw voucherLive('not_expired')
    return
  }
  let state: VoucherState
  try {
    state = await chain.voucherState(claim)
  } catch {
    throw chainUnavailable(claim.chain_id)
  }
  if (target === 'failed' && state !== 'dead') {
    throw voucherLive(state === 'redeemed' ? 'redeemed' : 'redeemable')
  }
  if (target === 'successful' && state !== 'redeemed') throw voucherNotRedeemed()
}

/**
 * PATCH /api/claim-transactions/:id. The claim is locked while its status is read and changed, so that
 * concurrent changes (owner, operator, reconciler) apply one after the other.
 */
export async function changeClaim(
  { sql, chains }: ChangeContext,
  id: string,
  actor: Actor,
  change: ClaimChange,
): Promise<ClaimRow> {
  const target = targetOf(actor, change)
  const transactionHash = change.transaction_hash?.toLowerCase()
  if (actor.kind === 'admin') {
    const before = await findClaim(sql, id)
    if (!before) throw claimNotFound(id)
    if (!isNoOp(before, target, transactionHash)) await refuseWithoutProof(chains, before, target)
  }
  // A reported hash is this claim's alone, never unique across claims: another user's report of the same
  // hash blocks nothing, and the chain (or the operator) decides which voucher a transaction redeemed.
  return sql.begin(async (tx) => {
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
}
