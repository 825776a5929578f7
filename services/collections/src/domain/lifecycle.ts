import type { Sql } from '@genesis/common'
import type { TosBody } from '@genesis/wire/collections'
import { deleteCollection, setLock } from '../db/collections.js'
import { insertTosAcceptance } from '../db/publication.js'
import { type Access, askFirst, lockEditableCollection, lockExpiry } from './guards.js'

/** What removing, locking and accepting terms need: the database, and who may edit the collection. */
export interface Lifecycle extends Access {
  sql: Sql
}

/** DELETE /v1/collections/{id}: the collection and its items go in one transaction. */
export async function removeCollection(lifecycle: Lifecycle, caller: string, id: string): Promise<void> {
  const ctx = await askFirst(lifecycle, lifecycle.sql, id, caller)
  await ctx.sql.begin(async (tx) => {
    await lockEditableCollection(tx, ctx, id, caller, { action: 'delete it' })
    await deleteCollection(tx, id)
  })
}

/**
 * POST /v1/collections/{id}/lock: starts a lock of LOCK_TTL_S, or answers the active one unchanged (a lock
 * is not renewed, so nobody can keep a collection locked forever). Answers the lock's start.
 */
export async function lockForPublication(lifecycle: Lifecycle, caller: string, id: string): Promise<Date> {
  const ctx = await askFirst(lifecycle, lifecycle.sql, id, caller)
  return ctx.sql.begin(async (tx) => {
    const row = await lockEditableCollection(tx, ctx, id, caller, { action: 'lock it', allowLocked: true })
    if (lockExpiry(ctx, row) !== null) return row.lock!
    const lock = ctx.now()
    await setLock(tx, id, lock)
    return lock
  })
}

/** POST /v1/collections/{id}/tos: records who accepted which terms for which content, and when. */
export async function acceptTerms(
  lifecycle: Lifecycle,
  caller: string,
  id: string,
  body: TosBody,
): Promise<void> {
  const ctx = await askFirst(lifecycle, lifecycle.sql, id, caller)
  await ctx.sql.begin(async (tx) => {
    await lockEditableCollection(tx, ctx, id, caller, {
      action: 'accept its terms of service',
      allowLocked: true,
      allowPublished: true,
    })
    await insertTosAcceptance(tx, {
      collection_id: id,
      signer: caller,
      email: body.email,
      event: body.event,
      hashes: body.hashes,
      now: ctx.now(),
    })
  })
}
