import type { GenericErrorCode } from '../errors.js'

/** The land service's own error codes; statuses and meanings in its README's "Error codes". */
export const LAND_ERROR_CODES = ['estate_empty', 'public_url_missing', 'too_many_parcels'] as const
export type LandErrorCode = GenericErrorCode | (typeof LAND_ERROR_CODES)[number]
