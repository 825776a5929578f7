import type { GenericErrorCode } from '@genesis/wire'
/** An error that the kit's error handler renders as the error envelope with its own status and code. */
export class HttpError extends Error {
  /** Seconds, sent as Retry-After: when the client may try again (a 503 or 429 that passes). */
  retryAfterS?: number

  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message)
    this.name = new.target.name
  }
}

export interface ErrorOptions {
  /** A more precise machine code than the status's generic one, e.g. `name_in_use`. */
  code?: string
  data?: Record<string, unknown>
  /** Sent as Retry-After, in seconds. */
  retryAfterS?: number
}

function errorClass(statusCode: number, defaultCode: string) {
  return class extends HttpError {
    constructor(message: string, options: ErrorOptions = {}) {
      super(statusCode, options.code ?? defaultCode, message, options.data)
      if (options.retryAfterS !== undefined) this.retryAfterS = options.retryAfterS
    }
  }
}

export class BadRequestError extends errorClass(400, 'bad_request') {}
export class UnauthorizedError extends errorClass(401, 'unauthorized') {}
export class ForbiddenError extends errorClass(403, 'forbidden') {}
export class NotFoundError extends errorClass(404, 'not_found') {}
export class ConflictError extends errorClass(409, 'conflict') {}
export class LockedError extends errorClass(423, 'locked') {}
export class TooManyRequestsError extends errorClass(429, 'too_many_requests') {}
export class InternalServerError extends errorClass(500, 'internal_server_error') {}
export class ServiceUnavailableError extends errorClass(503, 'service_unavailable') {}

/** The generic machine code of each status, for errors that carry none of their own. */
export const codeForStatus: Readonly<Record<number, GenericErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  411: 'length_required',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  423: 'locked',
  429: 'too_many_requests',
  431: 'request_header_fields_too_large',
  500: 'internal_server_error',
  503: 'service_unavailable',
}
