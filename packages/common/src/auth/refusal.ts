import { UnauthorizedError } from '../errors.js'

/** A 401 naming why the request was refused in `data.reason`. */
export const refuse = (reason: string, message: string) =>
  new UnauthorizedError(message, { data: { reason } })

export const invalidSignature = (message: string) =>
  refuse('invalid_signature', `Invalid signature: ${message}`)
