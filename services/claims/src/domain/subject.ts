import { notYourRecords, operatorNamesUser } from '../errors.js'
import type { Actor } from './transitions.js'

/** Whose records a list shows: a signed caller's own; the operator names the user. */
export function subjectOf(actor: Actor, user: string | undefined): string {
  if (actor.kind === 'admin') {
    if (user === undefined) {
      throw operatorNamesUser()
    }
    return user.toLowerCase()
  }
  if (user !== undefined && user.toLowerCase() !== actor.address) {
    throw notYourRecords()
  }
  return actor.address
}
