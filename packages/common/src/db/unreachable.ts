import postgres from 'postgres'

/** Raised by postgres.js itself when a connection cannot be made or is lost. */
const CLIENT_CODES = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
])
/** The socket's own failures on the way to the server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/**
 * Server states that pass: class 08 (connection exception), 53300 too many connections, 57P01-57P03
 * (shutting down, crashed, starting up) and 57014 (a statement cut by statement_timeout).
 */
const isTransientServerState = (code: string) =>
  code.startsWith('08') || code === '53300' || code === '57014' || /^57P0[123]$/.test(code)

/** The error that DatabaseTimeoutError raises for a query past the kit's query deadline. */
export class DatabaseTimeoutError extends Error {
  readonly code = 'QUERY_TIMEOUT'
  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms`)
    this.name = 'DatabaseTimeoutError'
  }
}

/**
 * Whether an error means the database cannot be reached or did not answer in time, something that
 * passes (503 and a retry), as opposed to a bug or a bad value (500 or 400).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseTimeoutError) return true
  if (error instanceof postgres.PostgresError) return isTransientServerState(error.code)
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (CLIENT_CODES.has(code) || SOCKET_CODES.has(code))) return true
  // Node's happy-eyeballs connect reports each address it tried inside an AggregateError.
  return error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)
}
