import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv'
import addFormatsImport from 'ajv-formats'
import type { FastifyInstance } from 'fastify'

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default

// verbose: errors carry the offending value and schema, so messages can quote the one and read hints
// from the other.
const shared: Options = { removeAdditional: false, useDefaults: true, strict: false, verbose: true }

/** The keyword of the issue raised for an integer parameter not written in decimal digits. */
export const DECIMAL_KEYWORD = 'decimal'

/** Plain decimal: an optional minus and digits, no more than a double holds exactly. */
const DECIMAL_INTEGER = /^-?\d{1,16}$/

const isIntegerSchema = (schema: unknown): boolean => {
  if (typeof schema !== 'object' || schema === null) return false
  const { type, anyOf } = schema as { type?: unknown; anyOf?: unknown }
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) return true
  return Array.isArray(anyOf) && anyOf.some(isIntegerSchema)
}

/** The integer-typed properties of a path or query schema. */
function integerProperties(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, unknown> }).properties
  return Object.entries(properties ?? {})
    .filter(([, property]) => isIntegerSchema(property))
    .map(([name]) => name)
}

/** Why a raw path or query value cannot be an integer parameter, or undefined when it can. */
function notDecimal(sent: unknown): string | undefined {
  if (sent === undefined || (typeof sent === 'string' && DECIMAL_INTEGER.test(sent))) return undefined
  return Array.isArray(sent) ? 'must be given once' : 'must be an integer written in decimal digits'
}

/**
 * Path and query values are strings coerced to the schema's types, and ajv's coercion reads `0x10`,
 * `1e1`, ` 5`, `5.0` or `+5` as numbers. Integers are checked on the raw strings first, so that every
 * route of every service takes them in plain decimal only; the other problems are still listed.
 */
function decimalIntegers(validate: ValidateFunction, names: string[]): ValidateFunction {
  const run = validate as (data: unknown, context?: unknown) => boolean
  const checked = ((data: Record<string, unknown> | null, context?: unknown) => {
    // The common case first, allocation-free: every integer written in decimal digits.
    let allDecimal = true
    for (const name of names) {
      if (notDecimal(data?.[name]) !== undefined) allDecimal = false
    }
    if (allDecimal) {
      const valid = run(data, context)
      checked.errors = validate.errors
      return valid
    }
    const issues: ErrorObject[] = []
    for (const name of names) {
      const message = notDecimal(data?.[name])
      if (message === undefined) continue
      issues.push({
        instancePath: `/${name}`,
        schemaPath: `#/properties/${name}`,
        keyword: DECIMAL_KEYWORD,
        params: {},
        message,
        data: data?.[name],
      })
    }
    // ajv coerces in place, so the raw values are read above, before it runs.
    run(data, context)
    const refused = new Set(issues.map((issue) => issue.instancePath))
    const others = (validate.errors ?? []).filter(
      (error) => !refused.has(`/${error.instancePath.split('/')[1] ?? ''}`),
    )
    checked.errors = [...issues, ...others]
    return false
  }) as ValidateFunction
  // Fastify hands ajv validators their parent (so a coerced root can be replaced) when it sees this.
  checked.schemaEnv = validate.schemaEnv
  return checked
}

/**
 * Bodies are validated as sent (a string is never coerced into an array) and stop at the first problem:
 * a bound such as maxItems is checked before the elements, so an oversized array costs one check and one
 * message, whatever it holds. Path and query values, which are always strings and few, are coerced to the
 * schema's types, integers from decimal digits only, and every problem is listed.
 */
export function installValidation(app: FastifyInstance) {
  const body = addFormats(new Ajv({ ...shared, allErrors: false, coerceTypes: false }))
  const parameters = addFormats(new Ajv({ ...shared, allErrors: true, coerceTypes: 'array' }))
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return body.compile(schema)
    const validate = parameters.compile(schema)
    const integers = httpPart === 'params' || httpPart === 'querystring' ? integerProperties(schema) : []
    return integers.length === 0 ? validate : decimalIntegers(validate, integers)
  })
}
