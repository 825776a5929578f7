import { BadRequestError, ConflictError, ForbiddenError, LockedError, NotFoundError } from '@genesis/common'

/** A 400 shaped like a schema failure, naming the field (`body.name`), so clients handle both alike. */
export const invalidField = (path: string, message: string, code = 'bad_request') =>
  new BadRequestError(`${path} ${message}`, { code, data: { errors: [{ path, message }] } })

export const collectionNotFound = (id: string) => new NotFoundError(`Collection ${id} not found`)
export const itemNotFound = (id: string) => new NotFoundError(`Item ${id} not found`)

export const notAllowed = (who: string, action: string) => new ForbiddenError(`Only ${who} may ${action}`)

export const collectionPublished = (id: string) =>
  new ConflictError(`Collection ${id} is published and can no longer be changed`, {
    code: 'collection_published',
  })

export const collectionLocked = (id: string, until: Date) =>
  new LockedError(`Collection ${id} is locked for publication until ${until.toISOString()}`, {
    code: 'collection_locked',
    data: { lock_expires_at: until.toISOString() },
  })
