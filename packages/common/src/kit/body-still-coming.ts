import type { IncomingMessage } from 'node:http'

/**
 * Whether a request declared a body that has not all arrived. `complete` alone is false for every request
 * whose (empty) body nobody read, a GET included: keep-alive would then end with every answer.
 */
export function bodyStillComing(raw: IncomingMessage): boolean {
  if (raw.complete) return false
  const headers = raw.headers
  const length = headers['content-length']
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}
