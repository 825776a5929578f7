import { BadRequestError, ForbiddenError } from '@genesis/common'
import type { Actor } from './transitions.js'

/** Whose records a list shows: a signed caller's own; the operator names the user. */
export function subjectOf(actor: Actor, user: string | undefined): string {
  if (actor.kind === 'admin') {
    if (user === undefined) {
      throw new BadRequestError('The operator must name the user: ?user=0x…', {
        data: { errors: [{ path: 'query.user', message: 'is required with the admin token' }] },
      })
    }
    return user.toLowerCase()
  }
  if (user !== undefined && user.toLowerCase() !== actor.address) {
    throw new ForbiddenError(
      'A signed caller may list only their own records (leave out ?user or use your address)',
    )
  }
  return actor.address
}
