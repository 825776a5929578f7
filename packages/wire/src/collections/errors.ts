import type { GenericErrorCode } from '../errors.js'

/** The collections service's own error codes; statuses and meanings in its README's "Error codes". */
export const COLLECTIONS_ERROR_CODES = [
  'already_approved',
  'already_decided',
  'cheque_used',
  'collection_full',
  'collection_locked',
  'collection_published',
  'contract_refused',
  'forum_already_set',
  'invalid_items',
  'item_collection_mismatch',
  'item_published',
  'items_waiting_approval',
  'name_in_use',
  'not_deployed',
  'not_owner',
  'not_published',
  'not_third_party',
  'nothing_to_review',
  'review_pending',
  'rpc_unavailable',
  'tos_not_accepted',
  'urn_in_use',
  'urn_mismatch',
] as const
export type CollectionsErrorCode = GenericErrorCode | (typeof COLLECTIONS_ERROR_CODES)[number]
