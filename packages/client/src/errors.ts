import type { ClaimsErrorCode } from '@genesis/wire/claims'
import type { CollectionsErrorCode } from '@genesis/wire/collections'
import type { LandErrorCode } from '@genesis/wire/land'

/** Every code an answer may carry (the services' contracts), and the client's own two. */
export type GenesisErrorCode =
  | ClaimsErrorCode
  | CollectionsErrorCode
  | LandErrorCode
  | 'network_error'
  | 'unexpected_response'

/**
 * What a service answered instead of success: the error envelope's `code` and `data` with the HTTP status.
 * A request that got no answer at all (connection refused, DNS, CORS) has status 0 and code `network_error`;
 * an answer that is not the envelope (a proxy's HTML page) has code `unexpected_response`.
 */
export class GenesisApiError extends Error {
  override readonly name = 'GenesisApiError'

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> | undefined,
    /** `METHOD url` of the request, for messages and logs. */
    readonly request: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export const isGenesisApiError = (error: unknown, code?: GenesisErrorCode): error is GenesisApiError =>
  error instanceof GenesisApiError && (code === undefined || error.code === code)
