import { createHash } from 'node:crypto'
import type { AuthChain } from '@dcl/crypto'

// A chain whose signatures did not verify is refused again, as sent, without recovering a signature: a
// client re-sending an invalid long chain costs a hash and a lookup, not milliseconds of CPU each time.
// Keyed by every link as sent (the last link signs the method, path, timestamp and metadata), so a key is
// the attacker's own text and no other request can share it: the cache refuses nothing that could verify.
// Only refusals that stay true are kept: not those of contract wallets, whose answer may change on chain.
// Bounded; the oldest entries go first.

const MAX_REFUSED = 10_000
const refused = new Map<string, Error>()

const keyOf = (chain: AuthChain) => createHash('sha256').update(JSON.stringify(chain)).digest('base64')

/** Whether a refusal of this chain stays true whatever happens on chain. */
const keepable = (chain: AuthChain) => !chain.some((link) => link.type.includes('EIP_1654'))

/** The refusal this very chain got before, if any. */
export const refusedBefore = (chain: AuthChain): Error | undefined =>
  refused.size === 0 ? undefined : refused.get(keyOf(chain))

export function rememberRefusal(chain: AuthChain, error: Error): void {
  if (!keepable(chain)) return
  if (refused.size >= MAX_REFUSED) refused.delete(refused.keys().next().value!)
  refused.set(keyOf(chain), error)
}

/** How many refusals are kept (for tests and metrics). */
export const refusedChains = () => refused.size
