import { BadRequestError, GRID_MAX, GRID_MIN } from '@genesis/common'
import type {
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  FastifySchemaValidationError,
  preValidationHookHandler,
} from 'fastify'

interface Issue {
  context: string
  parameter: string
  value: unknown
  message: string
}

const CONTEXT_NAMES: Record<string, string> = { querystring: 'query', params: 'path' }
const where = (context: string) => CONTEXT_NAMES[context] ?? context

/** What a parameter refused by its pattern should look like, in words rather than as the regex. */
const PATTERN_HINTS: Record<string, string> = {
  nw: `expected x,y with integers from ${GRID_MIN} to ${GRID_MAX}`,
  se: `expected x,y with integers from ${GRID_MIN} to ${GRID_MAX}`,
  address: 'expected an Ethereum address: 0x and 40 hex digits',
  txHash: 'expected a transaction hash: 0x and 64 hex digits',
  locale: 'expected a language code such as en, or with a region such as en-US',
}

function describe(name: string, issues: FastifySchemaValidationError[]): string {
  const constants = issues.filter((i) => i.keyword === 'const').map((i) => String(i.params.allowedValue))
  if (constants.length > 0) return `must be one of ${constants.join(', ')}`
  const specific = issues.find((i) => i.keyword !== 'anyOf') ?? issues[0]
  if (specific?.keyword === 'pattern' && PATTERN_HINTS[name]) return PATTERN_HINTS[name]
  return specific?.message ?? 'is invalid'
}

function refusal(issues: Issue[]): BadRequestError {
  const message = issues
    .map((i) =>
      i.value === undefined
        ? `Missing ${where(i.context)} parameter ${i.parameter}: ${i.message}`
        : `Invalid ${where(i.context)} parameter ${i.parameter} ${JSON.stringify(i.value)}: ${i.message}`,
    )
    .join('; ')
  const first = issues[0]
  return new BadRequestError(message, {
    data: {
      parameter: first?.parameter,
      value: first?.value,
      errors: issues.map((i) => ({
        path: `${where(i.context)}.${i.parameter}`,
        message: i.message,
        value: i.value ?? null,
      })),
    },
  })
}

/**
 * A 400 naming each bad parameter and quoting what was sent (the validator runs verbose, so each issue
 * carries its value). Runs only when validation fails: the success path pays nothing.
 */
function formatSchemaErrors(errors: FastifySchemaValidationError[], context: string): Error {
  const byParameter = new Map<string, FastifySchemaValidationError[]>()
  for (const issue of errors) {
    const missing = issue.params.missingProperty
    const name = typeof missing === 'string' ? missing : (issue.instancePath.split('/')[1] ?? '')
    byParameter.set(name, [...(byParameter.get(name) ?? []), issue])
  }
  return refusal(
    [...byParameter].map(([parameter, list]) => {
      const missing = list.some((i) => typeof i.params.missingProperty === 'string')
      const value = missing
        ? undefined
        : (list.find((i) => 'data' in i) as { data?: unknown } | undefined)?.data
      return { context, parameter, value, message: missing ? 'is required' : describe(parameter, list) }
    }),
  )
}

type IntegerFields = Array<['params' | 'querystring', string]>

/** The integer-typed path and query parameters of a route schema. */
function integerFields(schema: FastifySchema | undefined): IntegerFields {
  const fields: IntegerFields = []
  for (const context of ['params', 'querystring'] as const) {
    const properties = (schema?.[context] as { properties?: Record<string, { type?: string }> } | undefined)
      ?.properties
    for (const [name, property] of Object.entries(properties ?? {})) {
      if (property.type === 'integer') fields.push([context, name])
    }
  }
  return fields
}

const DECIMAL_INTEGER = /^-?\d{1,16}$/

/**
 * Integers must be written in decimal: the validator's type coercion would read `0x10`, `1e2` or ` 5`
 * as numbers. Checked on the raw strings, before validation, for the routes that take integers.
 */
function decimalIntegers(fields: IntegerFields): preValidationHookHandler {
  return (request: FastifyRequest, _reply, done) => {
    const issues: Issue[] = []
    for (const [context, name] of fields) {
      const sent = ((context === 'params' ? request.params : request.query) as Record<string, unknown>)[name]
      if (sent === undefined || (typeof sent === 'string' && DECIMAL_INTEGER.test(sent))) continue
      issues.push({
        context,
        parameter: name,
        value: sent,
        message: Array.isArray(sent) ? 'must be given once' : 'must be an integer written in decimal digits',
      })
    }
    done(issues.length > 0 ? refusal(issues) : undefined)
  }
}

/**
 * For every land JSON route: schema failures become a 400 that names each bad parameter and quotes the
 * value (with the allowed values of an enum, and words instead of a regex), in the kit's envelope with
 * `data.errors: [{ path, message, value }]`; integer parameters must be decimal.
 */
export function explainValidation(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.schemaErrorFormatter ??= formatSchemaErrors
    const fields = integerFields(route.schema)
    if (fields.length > 0) {
      const existing = route.preValidation
      const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]
      route.preValidation = [decimalIntegers(fields), ...hooks]
    }
  })
}
