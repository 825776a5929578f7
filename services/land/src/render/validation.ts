import { BadRequestError } from '@genesis/common'
import type { FastifyRequest, FastifySchemaValidationError } from 'fastify'

const CONTEXT_NAMES: Readonly<Record<string, string>> = { querystring: 'query', params: 'path' }

/** The value as the client sent it: from the raw query string, or the path parameter. */
function sentValue(request: FastifyRequest, context: string, name: string): string | undefined {
  if (context === 'querystring') {
    const query = request.url.split('?')[1] ?? ''
    const values = new URLSearchParams(query).getAll(name)
    return values.length === 0 ? undefined : values.join(',')
  }
  const params = request.params as Record<string, unknown>
  const value = params[name]
  return value === undefined ? undefined : String(value)
}

/**
 * Turns the schema's verdict (the route is registered with `attachValidation`) into a 400 that names every
 * bad parameter and quotes the value it was sent, e.g. `Invalid query parameter width "5000": must be <= 2048`.
 */
export function refuseInvalidParameters(
  request: FastifyRequest,
  patternHints: Readonly<Record<string, string>> = {},
): void {
  const failure = request.validationError
  if (!failure) return
  const context = failure.validationContext
  const where = CONTEXT_NAMES[context] ?? context
  const issues = (failure.validation as FastifySchemaValidationError[]).map((issue) => {
    const missing = issue.params.missingProperty
    const name =
      typeof missing === 'string' ? missing : (issue.instancePath.split('/').filter(Boolean)[0] ?? '')
    const hint = issue.keyword === 'pattern' ? patternHints[name] : undefined
    return { name, value: sentValue(request, context, name), message: hint ?? issue.message ?? 'is invalid' }
  })
  const text = issues
    .map(({ name, value, message }) => {
      const sent = value === undefined ? '' : ` "${value}"`
      return `Invalid ${where} parameter ${name}${sent}: ${message}`
    })
    .join('; ')
  throw new BadRequestError(text, {
    data: {
      errors: issues.map(({ name, value, message }) => ({
        path: `${where}.${name}`,
        message,
        value: value ?? null,
      })),
    },
  })
}
