import type { Queryable } from '@genesis/common'
import type { Config } from '../config.js'
import type { CollectionRow } from '../db/collections.js'
import { lockCollection } from '../db/collections.js'
import { collectionLocked, collectionNotFound, collectionPublished, notAllowed } from '../errors.js'
import { type CollectionRoles, canEdit, rolesOf } from './access.js'
import { isLockActive } from './views.js'

/** What deciding who may act on a collection needs: the committee, the lock's length and the clock. */
export interface Access {
  committee: ReadonlySet<string>
  config: Pick<Config, 'LOCK_TTL_S'>
  now: () => Date
}

export const roles = (ctx: Access, caller: string, row: CollectionRow): CollectionRoles =>
  rolesOf(caller, row, ctx.committee)

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
  if (!canEdit(roles(ctx, caller, row)))
    throw notAllowed('the owner or a manager of the collection', rules.action)
  if (row.is_published && !rules.allowPublished) throw collectionPublished(id)
  const lockedUntil = lockExpiry(ctx, row)
  if (lockedUntil && !rules.allowLocked) throw collectionLocked(id, lockedUntil)
  return row
}
