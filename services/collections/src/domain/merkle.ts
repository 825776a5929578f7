import { generateTree } from '@dcl/content-hash-tree'

/**
 * The Merkle root the committee submits to the Third Party Registry for these content hashes.
 * generateTree sorts its argument in place, so it gets a copy.
 */
export function contentHashesRoot(hashes: readonly string[]): string {
  if (hashes.length === 0) throw new Error('A Merkle root needs at least one content hash')
  return generateTree([...hashes]).merkleRoot
}
