import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  LockedError,
  NotFoundError,
  ServiceUnavailableError,
} from '@genesis/common'

// The collections service's error catalogue: every machine code it answers besides the kit's generic
// ones, one factory each (README "Error codes").

/** 400 bad_request (or a more precise code), shaped like a schema failure naming the field (`body.name`). */
export const invalidField = (path: string, message: string, code = 'bad_request') =>
  new BadRequestError(`${path} ${message}`, { code, data: { errors: [{ path, message }] } })

/** 400 page_too_deep: page × limit is past the rows `page` may read; deeper pages are read with `cursor`. */
export const pageTooDeep = (maxRows: number) =>
  invalidField(
    'query.page',
    `× limit must be at most ${maxRows}: read deeper pages with cursor (the previous page's pagination.next_cursor)`,
    'page_too_deep',
  )

/** 400 invalid_urn: the body's URN does not parse, or does not match the collection's kind. */
export const invalidUrn = (message: string) => invalidField('body.urn', message, 'invalid_urn')

/** 400 invalid_cheque: the third-party cheque's quantity or signature is wrong. */
export const invalidCheque = (path: string, message: string) => invalidField(path, message, 'invalid_cheque')

/** 400 invalid_items: `itemIds` repeats, misses or names items that are not the collection's. */
export const invalidItems = (message: string, data: Record<string, unknown>) =>
  new BadRequestError(message, { code: 'invalid_items', data })

/** 403 forbidden: the signer does not hold the role the action needs. */
export const notAllowed = (who: string, action: string) => new ForbiddenError(`Only ${who} may ${action}`)

/** 404 not_found: no collection with this id (or one the caller may not see). */
export const collectionNotFound = (id: string) => new NotFoundError(`Collection ${id} not found`)

/** 404 not_found: no item with this id. */
export const itemNotFound = (id: string) => new NotFoundError(`Item ${id} not found`)

/** 404 not_found: no curation (review) with this id. */
export const curationNotFound = (id: string) => new NotFoundError(`Curation ${id} not found`)

/** 409 collection_published: a published collection can no longer be changed. */
export const collectionPublished = (id: string) =>
  new ConflictError(`Collection ${id} is published and can no longer be changed`, {
    code: 'collection_published',
  })

/** 423 collection_locked: locked for publication until `lock_expires_at`. */
export const collectionLocked = (id: string, until: Date) =>
  new LockedError(`Collection ${id} is locked for publication until ${until.toISOString()}`, {
    code: 'collection_locked',
    data: { lock_expires_at: until.toISOString() },
  })

/** 409 name_in_use: another standard collection has this name, or one a reader cannot tell from it. */
export const nameInUse = (name: string) =>
  new ConflictError(
    `The name "${name}" is already used by another collection (names are compared ignoring case, spacing, invisible characters and lookalike letters)`,
    { code: 'name_in_use' },
  )

/** 409 urn_in_use: another collection has this URN. */
export const urnInUse = () =>
  new ConflictError('Another collection already has this URN', { code: 'urn_in_use' })

/** 409 urn_mismatch: a collection's URN cannot change. */
export const urnMismatch = (id: string, urn: string | null) =>
  new ConflictError(`The URN of collection ${id} is ${urn} and cannot be changed`, { code: 'urn_mismatch' })

/** 409 collection_full: a collection holds at most what one publication takes. */
export const collectionFull = (id: string, max: number) =>
  new ConflictError(
    `Collection ${id} already has ${max.toLocaleString('en-US')} items, the most one publication takes: delete one before adding another`,
    { code: 'collection_full', data: { max_items: max } },
  )

/** 409 item_published: the item was sent to review and can no longer be changed. */
export const itemPublished = (id: string) =>
  new ConflictError(`Item ${id} was sent to review and can no longer be changed`, { code: 'item_published' })

/** 409 item_collection_mismatch: the item belongs to another collection. */
export const itemCollectionMismatch = (id: string) =>
  new ConflictError(`Item ${id} belongs to another collection`, { code: 'item_collection_mismatch' })

/** 409 tos_not_accepted: publish needs the terms accepted for this collection. */
export const tosNotAccepted = (id: string) =>
  new ConflictError(`The terms of service were not accepted for collection ${id}`, {
    code: 'tos_not_accepted',
  })

/** 409 not_deployed: no contract at the collection's address yet (checked when RPC_URL is set). */
export const notDeployed = (address: string | null) =>
  new ConflictError(`No contract is deployed at ${address} yet`, { code: 'not_deployed' })

/** 409 not_owner: the contract at the collection's address is not owned by the collection's owner. */
export const notOwner = (address: string, deployer: string | null, owner: string) =>
  new ConflictError(
    deployer === null
      ? `The contract at ${address} has no owner() the collection's owner ${owner} holds: it is not this collection's contract`
      : `The contract at ${address} is owned by ${deployer}, not by the collection's owner ${owner}: someone else deployed it first`,
    { code: 'not_owner', data: { contract_address: address, contract_owner: deployer } },
  )

/** 409 items_waiting_approval: some items were already sent to review. */
export const itemsWaitingApproval = (items: string[]) =>
  new ConflictError(`Some items are already waiting for approval: ${items.join(', ')}`, {
    code: 'items_waiting_approval',
    data: { items },
  })

/** 409 cheque_used: a cheque with this EIP-712 digest was stored before, however it was signed. */
export const chequeAlreadyUsed = () =>
  new ConflictError(
    'This cheque was already used: a cheque (third party, qty, salt) pays once, whatever its signature',
    { code: 'cheque_used' },
  )

/** 409 not_third_party: approval data exists for third-party collections only. */
export const notThirdParty = (id: string) =>
  new ConflictError(`Collection ${id} is not a third-party collection`, { code: 'not_third_party' })

/** 409 not_published: nothing was published (or sent to review) yet. */
export const notPublished = (message: string) => new ConflictError(message, { code: 'not_published' })

/** 409 review_pending: the collection already has a review waiting for the committee. */
export const reviewPending = (id: string, curationId?: string) =>
  new ConflictError(`Collection ${id} already has a review waiting for the committee`, {
    code: 'review_pending',
    ...(curationId === undefined ? {} : { data: { curation_id: curationId } }),
  })

/** 409 already_approved: an approved standard collection has nothing left to review. */
export const alreadyApproved = (id: string) =>
  new ConflictError(`Collection ${id} is already approved`, { code: 'already_approved' })

/** 409 nothing_to_review: no third-party items wait for approval. */
export const nothingToReview = (id: string) =>
  new ConflictError(`Collection ${id} has no items waiting for approval`, { code: 'nothing_to_review' })

/** 409 already_decided: the review was approved or rejected before. */
export const alreadyDecided = (curationId: string, status: string) =>
  new ConflictError(`Curation ${curationId} was already decided (${status})`, {
    code: 'already_decided',
    data: { status },
  })

/** 409 forum_already_set: the forum thread is set once; only the committee changes it. */
export const forumAlreadySet = (
  id: string,
  current: { forum_link: string | null; forum_id: number | null },
) =>
  new ConflictError(`The forum thread of collection ${id} is already set; only the committee may change it`, {
    code: 'forum_already_set',
    data: current,
  })

/** 503 rpc_unavailable: the blockchain node did not answer. */
/**
 * 409 contract_refused: a contract reverted a view the service relies on (the registry's
 * isThirdPartyManager for a third party it does not know, a contract without the view).
 */
export const contractRefused = (what: string) =>
  new ConflictError(
    `The contract refused the call (${what} reverted): for a third party, it may not be registered in the Third Party Registry`,
    { code: 'contract_refused' },
  )

export const rpcUnavailable = (what: string, reason: string | undefined) =>
  new ServiceUnavailableError(`The blockchain node could not answer (${what}): ${reason}`, {
    code: 'rpc_unavailable',
  })
