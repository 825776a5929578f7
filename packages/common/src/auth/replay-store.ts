import { BATCH_SIZE, inBatches, oldRowsDeleting } from '../db/batches.js'
import type { Sql } from '../db/database.js'
import { refuse } from './refusal.js'
import type { VerifiedSigner } from './verify.js'

/** An accepted mutating request, kept until it could no longer pass the age check. */
export interface UsedSignature {
  /**
   * The signer's replayKey (a digest of what verification established), not the signature's text, so that
   * a re-spelled request is the same replay. Named for the column that stores it.
   */
  signature: string
  expiresAt: Date
}

export const usedSignature = (signer: VerifiedSigner, maxAgeS: number): UsedSignature => ({
  signature: signer.replayKey,
  expiresAt: new Date(signer.timestamp + maxAgeS * 1000),
})

/**
 * The statement that records a used signature, in the service's database so that every replica refuses
 * a replay: one row when the signature is new, none when it was used before. A route that records it
 * itself (route config `replay: 'route'`) puts it in its own write, as a CTE, so that the request and its
 * effect commit together in one statement.
 */
export const recordSignature = (sql: Sql, used: UsedSignature) => sql`
  insert into signed_fetch_replays (signature, expires_at) values (${used.signature}, ${used.expiresAt})
  on conflict (signature) do nothing
  returning 1`

/** Whether a signature was recorded already: for a route that records it itself and refused the request first. */
export async function signatureUsed(sql: Sql, used: UsedSignature): Promise<boolean> {
  const [row] = await sql`select 1 from signed_fetch_replays where signature = ${used.signature}`
  return row !== undefined
}

export const replayRefused = () => refuse('replayed', 'This signed request was already used (replay refused)')

export async function rememberSignature(sql: Sql, used: UsedSignature): Promise<void> {
  const inserted = await recordSignature(sql, used)
  if (inserted.length === 0) throw replayRefused()
}

/**
 * Forgets the signatures that could no longer pass the age check, oldest first, in batches that the
 * expires_at index finds (inBatches), each starting where the one before ended (oldRowsDeleting): each
 * statement's cost is its batch, whatever the table holds (rows here are never updated).
 */
export function pruneSignatures(sql: Sql, signal?: AbortSignal): Promise<number> {
  return inBatches(sql, oldRowsDeleting('signed_fetch_replays', 'expires_at', 0), {
    size: BATCH_SIZE,
    signal,
  })
}
