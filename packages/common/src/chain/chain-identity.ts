/*
 * Which chain a node serves: its chain id and the hash of its genesis block. A development node started
 * afresh keeps the chain id but not the genesis, so the pair tells a chain from its replacement; a service
 * remembers the chain its derived state came from and compares it with the providers' before acting.
 */

export interface ChainIdentity {
  /** Decimal. */
  chainId: string
  /** The genesis block's hash, 0x and lower-case. */
  genesisHash: string
}

export const sameChain = (a: ChainIdentity, b: ChainIdentity): boolean =>
  a.chainId === b.chainId && a.genesisHash === b.genesisHash

export const describeChain = (c: ChainIdentity): string =>
  `chain ${c.chainId}, genesis ${c.genesisHash.slice(0, 10)}…`

/**
 * What a service does with the chain its providers serve, given the one it remembers:
 * - `same`: go on;
 * - `first`: nothing remembered yet, record it;
 * - `replaced`: another chain (a development node started afresh) and a development service: its
 *   derived state starts over, said in one log line;
 * - `refused`: another chain in production: the service must not act on it (at start: refuses to start).
 */
export type ChainVerdict = 'same' | 'first' | 'replaced' | 'refused'

export function judgeChain(
  remembered: ChainIdentity | null,
  served: ChainIdentity,
  options: { production: boolean },
): ChainVerdict {
  if (!remembered) return 'first'
  if (sameChain(remembered, served)) return 'same'
  return options.production ? 'refused' : 'replaced'
}
