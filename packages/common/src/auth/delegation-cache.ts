import { type AuthChain, Authenticator, parseEphemeralPayload } from '@dcl/crypto'
import { ephemeralExpiredText, invalidSignature, libraryRefusal } from './refusal.js'

/** What the owner → ephemeral link grants: the ephemeral key (lower-case) and until when. */
export interface Delegation {
  ephemeral: string
  expiresAt: number
}

// The owner → ephemeral link is the same on every request of a session: verified once with @dcl/crypto,
// then found here for the process's lifetime. Bounded; the oldest entries go first.
const MAX_DELEGATIONS = 10_000
const delegations = new Map<string, Delegation>()

/** The delegation of a personal chain's first two links, verified once per session. */
export async function verifiedDelegation(chain: AuthChain, now: number): Promise<Delegation> {
  const key = `${chain[0]!.payload}\n${chain[1]!.payload}\n${chain[1]!.signature}`
  const known = delegations.get(key)
  if (known) return known
  let parsed: { ephemeralAddress: string; expiration: number }
  try {
    parsed = parseEphemeralPayload(chain[1]!.payload)
  } catch {
    throw invalidSignature('the ephemeral link is not a Decentraland login message')
  }
  // Checked here first, so that an expired key is said plainly, with when.
  if (!(parsed.expiration > now)) throw ephemeralExpired(parsed.expiration)
  const result = await Authenticator.validateSignature(parsed.ephemeralAddress, chain.slice(0, 2), null, now)
  if (!result.ok) throw libraryRefusal('the ephemeral key is not signed by the owner', result.message)
  const delegation = { ephemeral: parsed.ephemeralAddress.toLowerCase(), expiresAt: parsed.expiration }
  if (delegations.size >= MAX_DELEGATIONS) delegations.delete(delegations.keys().next().value!)
  delegations.set(key, delegation)
  return delegation
}

/** The ephemeral key's delegation has ended: the client must log in again. */
export const ephemeralExpired = (expiresAt: number) => invalidSignature(ephemeralExpiredText(expiresAt))
