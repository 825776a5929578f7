/**
 * The machine codes of the error envelope (`{ ok: false, error, code, data }`). These any service may
 * answer, one per HTTP status it refuses with; each service's own codes are in its contract
 * (`CLAIMS_ERROR_CODES`, `COLLECTIONS_ERROR_CODES`, `LAND_ERROR_CODES`).
 */
export const GENERIC_ERROR_CODES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'request_timeout',
  'conflict',
  'length_required',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'locked',
  'too_many_requests',
  'request_header_fields_too_large',
  'internal_server_error',
  'service_unavailable',
] as const
export type GenericErrorCode = (typeof GENERIC_ERROR_CODES)[number]
