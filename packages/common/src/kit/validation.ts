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

/** Keywords that check every element or member of the value they sit on. */
const PER_ELEMENT = ['items', 'prefixItems', 'additionalItems', 'contains', 'uniqueItems'] as const
const PER_MEMBER = ['properties', 'patternProperties', 'additionalProperties', 'propertyNames'] as const

/** The keywords of `node` named in `keys`, taken out of it. */
function take(node: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> | undefined {
  const taken: Record<string, unknown> = {}
  for (const key of keys) {
    if (key in node) {
      taken[key] = node[key]
      delete node[key]
    }
  }
  return Object.keys(taken).length > 0 ? taken : undefined
}

// biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, a schema that is never awaited.
const guarded = (bound: object, checks: object) => ({ if: bound, then: checks })

/**
 * The schema with each bounded array's (and object's) element checks behind its bound: `if` the bound
 * holds, `then` the elements are checked. Validated with every error collected, an array over its
 * maxItems then costs one check and one problem, however many elements it holds.
 */
export function boundsFirst(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(boundsFirst)
  if (typeof schema !== 'object' || schema === null) return schema
  const node: Record<string, unknown> = {}
  // No $id in the copy: a schema named in two bodies would be two schemas of one id to ajv.
  for (const [key, value] of Object.entries(schema)) if (key !== '$id') node[key] = boundsFirst(value)
  const guards: Record<string, unknown>[] = []
  if (typeof node.maxItems === 'number') {
    const checks = take(node, PER_ELEMENT)
    if (checks) guards.push(guarded({ maxItems: node.maxItems }, checks))
  }
  if (typeof node.maxProperties === 'number') {
    const checks = take(node, PER_MEMBER)
    if (checks) guards.push(guarded({ maxProperties: node.maxProperties }, checks))
  }
  if (guards.length === 1) Object.assign(node, guards[0])
  else if (guards.length > 1) node.allOf = [...((node.allOf as unknown[] | undefined) ?? []), ...guards]
  return node
}

/** The keyword of the issue ajv adds when a `then` fails: its problems are listed on their own. */
export const GUARD_KEYWORD = 'if'

/**
 * Bodies are validated as sent (a string is never coerced into an array). The accepted case runs the
 * first-problem validator alone, as cheap as validation gets; a refused body is validated again with
 * every problem collected, on a schema whose bounds (maxItems, maxProperties) are checked before the
 * elements they bound, so that an oversized array is one problem, not one per element. Path and query
 * values, which are always strings and few, are coerced to the schema's types, integers from decimal
 * digits only, and every problem is listed.
 */
export function installValidation(app: FastifyInstance) {
  const body = addFormats(new Ajv({ ...shared, allErrors: false, coerceTypes: false }))
  const bodyProblems = addFormats(new Ajv({ ...shared, allErrors: true, coerceTypes: false }))
  const parameters = addFormats(new Ajv({ ...shared, allErrors: true, coerceTypes: 'array' }))
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body')
      return everyBodyProblem(body.compile(schema), bodyProblems.compile(boundsFirst(schema) as object))
    const validate = parameters.compile(schema)
    const integers = httpPart === 'params' || httpPart === 'querystring' ? integerProperties(schema) : []
    return integers.length === 0 ? validate : decimalIntegers(validate, integers)
  })
}

function everyBodyProblem(first: ValidateFunction, every: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    if (first(data)) {
      checked.errors = null
      return true
    }
    every(data)
    checked.errors = every.errors ?? first.errors
    return false
  }) as ValidateFunction
  checked.schemaEnv = first.schemaEnv
  return checked
}
