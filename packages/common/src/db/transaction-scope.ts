import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * Whether the code running is inside a database transaction (`sql.begin` of a pool made by createSql).
 * A transaction holds a pooled connection and its row locks until it ends: a network call made inside one
 * (a chain provider answering in seconds) holds them as long, and a few such requests take the whole pool
 * from everyone. Ask the network first, then begin, and re-check inside what the answer was about.
 */
const scope = new AsyncLocalStorage<true>()

export const insideTransaction = (): boolean => scope.getStore() === true

/** Runs `work` marked as inside a transaction (createSql wraps every `begin` callback with it). */
export const inTransactionScope = <T>(work: () => T): T => scope.run(true, work)

/** A network call was made inside a transaction: a mistake in the code, never the caller's. */
export class NetworkCallInTransaction extends Error {
  override readonly name = 'NetworkCallInTransaction'
  constructor(what: string) {
    super(`${what} was made inside a database transaction: ask before begin(), then re-check inside it`)
  }
}

/** Throws when called inside a transaction: the first line of every network call the services make. */
export function assertOutsideTransaction(what: string): void {
  if (insideTransaction()) throw new NetworkCallInTransaction(what)
}
