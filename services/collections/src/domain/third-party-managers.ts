import type { Queryable } from '@genesis/common'
import type { ChainReader } from '../chain/chain-reader.js'
import { recordManagerAnswer, thirdPartiesListing } from '../db/third-parties.js'

/** What deciding who manages a third party needs: the chain reader (null without RPC_URL) and the clock. */
export interface ManagerSource {
  chain: ChainReader | null
  now: () => Date
  /**
   * The registry's answers asked before a transaction began (`askedManager`), by `managerKey`: inside a
   * transaction the chain is never asked (it would hold the connection and the row lock while it answers).
   */
  asked?: ReadonlyMap<string, boolean>
}

export const managerKey = (thirdPartyId: string, caller: string) => `${thirdPartyId}\n${caller}`

/** `ctx` with the registry's answer for `caller` on the third party asked now, before any transaction. */
export async function askedManager<T extends ManagerSource>(
  ctx: T,
  thirdPartyId: string,
  caller: string,
): Promise<T> {
  if (!ctx.chain) return ctx
  const manages = await ctx.chain.isThirdPartyManager(thirdPartyId, caller)
  return { ...ctx, asked: new Map([...(ctx.asked ?? []), [managerKey(thirdPartyId, caller), manages]]) }
}

/**
 * Whether `caller` manages the third party. With RPC_URL the registry on chain decides
 * (`isThirdPartyManager`), and its answer is recorded in `third_parties.managers` through `sql` (the
 * caller's transaction when there is one); the stored managers decide only without RPC_URL (development).
 */
export async function managesThirdParty(
  ctx: ManagerSource,
  sql: Queryable,
  thirdPartyId: string,
  caller: string,
  stored: readonly string[],
): Promise<boolean> {
  if (!ctx.chain) return stored.includes(caller)
  const manages =
    ctx.asked?.get(managerKey(thirdPartyId, caller)) ??
    (await ctx.chain.isThirdPartyManager(thirdPartyId, caller))
  if (manages !== stored.includes(caller)) {
    await recordManagerAnswer(sql, thirdPartyId, caller, manages, ctx.now())
  }
  return manages
}

/**
 * With RPC_URL, before an address's list of collections: the third parties whose stored managers include
 * it are asked again, and those the chain no longer confirms forget it, so the list shows what the chain
 * says today.
 */
export async function confirmStoredManager(
  ctx: ManagerSource,
  sql: Queryable,
  address: string,
): Promise<void> {
  if (!ctx.chain) return
  const listing = await thirdPartiesListing(sql, address)
  await Promise.all(listing.map((id) => managesThirdParty(ctx, sql, id, address, [address])))
}
