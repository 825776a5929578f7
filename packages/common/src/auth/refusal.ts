import { UnauthorizedError } from '../errors.js'

/** A 401 naming why the request was refused in `data.reason`. */
export const refuse = (reason: string, message: string) =>
  new UnauthorizedError(message, { data: { reason } })

export const invalidSignature = (message: string) =>
  refuse('invalid_signature', `Invalid signature: ${message}`)

/**
 * A chain @dcl/crypto refused, in our words: its own text ("ERROR. Link type: … Test: …") names its
 * internals and is kept for the log (the error's cause), not sent.
 */
export function libraryRefusal(ours: string, theirs: string | undefined): Error {
  const error = invalidSignature(ours)
  if (theirs) error.cause = theirs
  return error
}

/** An ephemeral key past its expiration, said with when (a date the login message can hold but not show is said so). */
export const ephemeralExpiredText = (expiresAt: number) => {
  const when = new Date(expiresAt)
  return `the ephemeral key expired at ${Number.isNaN(when.getTime()) ? 'an invalid date' : when.toISOString()}: sign in again for a new one`
}
