import type { Queryable } from '@genesis/common'
import type { Config } from '../config.js'
import type { CollectionRow } from '../db/collections.js'
import { findCollection, lockCollection } from '../db/collections.js'
import { collectionLocked, collectionNotFound, collectionPublished, notAllowed } from '../errors.js'
import { type CollectionRoles, canEdit, rolesOf, seesFullView } from './access.js'
import { askedManager, type ManagerSource, managesThirdParty } from './third-party-managers.js'
import { isLockActive } from './views.js'

/**
 * What deciding who may act on a collection needs: the committee, the lock's length, the clock, and the
 * chain reader (with RPC_URL the registry on chain decides who manages a third party).
 */
export interface Access extends ManagerSource {
  committee: ReadonlySet<string>
  config: Pick<Config, 'LOCK_TTL_S'>
  now: () => Date
}

/**
 * The caller's roles from the stored record alone: what they are without RPC_URL. With RPC_URL the stored
 * managers of a third party are not a right: use `rolesOn`.
 */
export const roles = (ctx: Access, caller: string, row: CollectionRow): CollectionRoles =>
  rolesOf(caller, ctx.chain ? { ...row, third_party_managers: [] } : row, ctx.committee)

/**
 * The caller's roles on the collection, for deciding whether it may edit (`edit`) or see the full view
 * (`see`). With RPC_URL, managing the collection's third party is the registry's answer on chain, asked
 * only when the caller's other roles do not already settle the question (`q`: where its answer is recorded,
 * the caller's transaction when there is one).
 */
export async function rolesOn(
  ctx: Access,
  q: Queryable,
  caller: string,
  row: CollectionRow,
  purpose: 'edit' | 'see',
): Promise<CollectionRoles> {
  const stored = roles(ctx, caller, row)
  if (!ctx.chain || row.third_party_id === null) return stored
  const settled = purpose === 'edit' ? canEdit(stored) : seesFullView(stored)
  if (settled) return stored
  const manages = await managesThirdParty(ctx, q, row.third_party_id, caller, row.third_party_managers)
  return { ...stored, manager: stored.manager || manages }
}

/**
 * Before a transaction on the collection: with RPC_URL, the registry's answer on whether `caller` manages
 * the collection's third party, when the caller's other roles do not settle it (the owner, a manager of the
 * collection). Read without a lock: the URN, and so the third party, never changes, and the transaction
 * decides on its own locked row with this answer (`rolesOn` finds it in `asked`).
 */
export async function askFirst<T extends Access>(
  ctx: T,
  sql: Queryable,
  id: string,
  caller: string,
): Promise<T> {
  if (!ctx.chain) return ctx
  const row = await findCollection(sql, id)
  if (!row || row.third_party_id === null || canEdit(roles(ctx, caller, row))) return ctx
  return askedManager(ctx, row.third_party_id, caller)
}

export function lockExpiry(ctx: Access, row: CollectionRow): Date | null {
  return isLockActive(row.lock, ctx.config.LOCK_TTL_S, ctx.now())
    ? new Date(row.lock!.getTime() + ctx.config.LOCK_TTL_S * 1000)
    : null
}

export interface EditRules {
  /** What the caller tries to do, for the 403 message. */
  action: string
  /** Publication refuses the change (409) unless this is set. */
  allowPublished?: boolean
  /** An active lock refuses the change (423) unless this is set. */
  allowLocked?: boolean
}

/**
 * Takes the collection's row lock for the rest of the transaction and checks, in this order, that it
 * exists (404), that the caller is its owner or a manager (403), that it is not published (409) and not
 * locked (423). Holding the row lock is what keeps concurrent lock/publish/PUT/DELETE from interleaving.
 */
export async function lockEditableCollection(
  tx: Queryable,
  ctx: Access,
  id: string,
  caller: string,
  rules: EditRules,
): Promise<CollectionRow> {
  const row = await lockCollection(tx, id)
  if (!row) throw collectionNotFound(id)
  if (!canEdit(await rolesOn(ctx, tx, caller, row, 'edit')))
    throw notAllowed('the owner or a manager of the collection', rules.action)
  if (row.is_published && !rules.allowPublished) throw collectionPublished(id)
  const lockedUntil = lockExpiry(ctx, row)
  if (lockedUntil && !rules.allowLocked) throw collectionLocked(id, lockedUntil)
  return row
}
