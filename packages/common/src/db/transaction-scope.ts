import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * Whether the code running is inside a database transaction (`sql.begin` of a pool made by createSql).
 * A transaction holds a pooled connection and its row locks until it ends: a network call made inside one
 * (a chain provider answering in seconds) holds them as long, and a few such requests take the whole pool
 * from everyone. Ask the network first, then begin, and re-check inside what the answer was about.
 *
 * On Node 20 an AsyncLocalStorage in use turns async hooks on for the whole process: every promise, timer
 * and tick then pays for carrying the store (about 2 µs of a 25 µs cached read). So the store is on only
 * while a transaction is open: the first to begin turns it on, the last to end turns it off. Outside every
 * transaction there is nothing to find, and `insideTransaction()` is false without asking.
 */
const scope = new AsyncLocalStorage<true>()
let open = 0

export const insideTransaction = (): boolean => open > 0 && scope.getStore() === true

/** Runs `work` marked as inside a transaction (createSql wraps every `begin` callback with it). */
export function inTransactionScope<T>(work: () => T): T {
  open++
  let result: T
  try {
    result = scope.run(true, work)
  } catch (error) {
    closed()
    throw error
  }
  if (result instanceof Promise) return result.finally(closed) as T
  closed()
  return result
}

function closed() {
  open--
  // disable() forgets the stores of work still pending, which is what ending the last transaction means
  if (open === 0) scope.disable()
}

/** Whether async hooks carry the transaction store now (tests: off between transactions). */
export const transactionScopeTracking = (): boolean => open > 0

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
