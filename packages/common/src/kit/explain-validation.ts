import { HINT } from '@genesis/wire'
import type { FastifyError, FastifyRequest } from 'fastify'
import { escapeUnsafeText } from '../display-text.js'
import { DECIMAL_KEYWORD, GUARD_KEYWORD } from './validation.js'

/**
 * The one place where a schema's verdict becomes words, for every route of every service. Path, query
 * and header values are explained per parameter, quoting what the client sent (`Invalid query parameter
 * limit "500": must be <= 100`); bodies per JSON path (`body.rewards.0 must match format "uuid"`).
 * However large the input, the answer stays small: at most MAX_LISTED problems, the rest counted, and
 * every quoted value or path cut short.
 */

/** A problem as ajv reports it with `verbose`: the value and the schema that refused it included. */
interface AjvIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
  data?: unknown
  parentSchema?: Record<string, unknown>
}

export interface ValidationIssue {
  path: string
  message: string
  value?: unknown
}

export interface ValidationExplanation {
  message: string
  data: Record<string, unknown>
}

const MAX_LISTED = 20
const MAX_IN_MESSAGE = 5
const QUOTE_LIMIT = 80
const TEXT_LIMIT = 80
const MESSAGE_LIMIT = 160

const cut = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit)}…` : text)

/**
 * The bad value as the caller would recognise it, cut short when long. Control and bidi characters are
 * written as escapes: the message is read by people, in a page or a terminal, and `data` keeps the value.
 */
const quote = (value: unknown) =>
  cut(typeof value === 'string' ? `"${escapeUnsafeText(value)}"` : String(JSON.stringify(value)), QUOTE_LIMIT)

/** A value fit to echo back in data: scalars only, long strings cut short. */
const echo = (value: unknown) => (typeof value === 'string' ? cut(value, TEXT_LIMIT) : value)

const isScalar = (value: unknown) => value === null || (typeof value !== 'object' && value !== undefined)

/** How the problems of one value read: one of the allowed values, a hint, or ajv's own message. */
function describe(issues: AjvIssue[]): string {
  const constants = issues.filter((i) => i.keyword === 'const').map((i) => String(i.params.allowedValue))
  if (constants.length > 0) return `must be one of ${constants.join(', ')}`
  const specific = issues.find((i) => i.keyword !== 'anyOf') ?? issues[0]
  if (!specific) return 'is invalid'
  const hint = specific.parentSchema?.[HINT]
  if (specific.keyword === 'pattern' && typeof hint === 'string') return hint
  const { allowedValues } = specific.params
  if (Array.isArray(allowedValues)) return `must be one of ${allowedValues.join(', ')}`
  return specific.message ?? 'is invalid'
}

/** At most MAX_LISTED issues, and how many more there were. */
function capped<T>(issues: T[]): { listed: T[]; more: number } {
  return { listed: issues.slice(0, MAX_LISTED), more: Math.max(0, issues.length - MAX_LISTED) }
}

function summary(lines: string[], total: number): string {
  const shown = lines.slice(0, MAX_IN_MESSAGE)
  const rest = total - shown.length
  return rest > 0 ? `${shown.join('; ')}; and ${rest} more` : shown.join('; ')
}

const PARAMETER_KINDS: Readonly<Record<string, string>> = {
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
}
const PATH_PREFIXES: Readonly<Record<string, string>> = {
  querystring: 'query',
  params: 'params',
  headers: 'headers',
}

/**
 * The value as the client sent it: from the raw query string (repeats joined), the path or a header.
 * Path values are coerced in place, so an integer refused for its notation is quoted from the issue.
 */
function sentValue(
  request: FastifyRequest,
  context: string,
  name: string,
  issues: AjvIssue[],
): string | undefined {
  const refused = issues.find((i) => i.keyword === DECIMAL_KEYWORD)
  if (refused && typeof refused.data === 'string') return refused.data
  if (context === 'querystring') {
    const query = request.url.split('?')[1] ?? ''
    const values = new URLSearchParams(query).getAll(name)
    return values.length === 0 ? undefined : values.join(',')
  }
  if (context === 'params') {
    const raw = rawPathParameter(request, name)
    if (raw !== undefined) return raw
  }
  const source = (context === 'params' ? request.params : request.headers) as Record<string, unknown>
  const value = source?.[name]
  return value === undefined ? undefined : String(value)
}

/**
 * A path parameter as it was in the URL: the validated params are coerced in place, and a number past 2^53
 * would be quoted back rounded (9007199254740993 as …992). Read at the route's `:name` segment.
 */
function rawPathParameter(request: FastifyRequest, name: string): string | undefined {
  const pattern = request.routeOptions.url?.split('/') ?? []
  const path = request.url.split('?')[0]!.split('/')
  const at = pattern.indexOf(`:${name}`)
  if (at < 0 || pattern.length !== path.length) return undefined
  try {
    return decodeURIComponent(path[at]!)
  } catch {
    return path[at]
  }
}

/** One entry per bad parameter (ajv may report several problems of one), in the order reported. */
function explainParameters(issues: AjvIssue[], context: string, request: FastifyRequest) {
  const byName = new Map<string, AjvIssue[]>()
  for (const issue of issues) {
    const { missingProperty, additionalProperty } = issue.params
    const name =
      typeof missingProperty === 'string'
        ? missingProperty
        : typeof additionalProperty === 'string'
          ? additionalProperty
          : (issue.instancePath.split('/')[1] ?? '')
    byName.set(name, [...(byName.get(name) ?? []), issue])
  }
  const kind = PARAMETER_KINDS[context] ?? context
  const entries = [...byName].map(([name, list]) => {
    const missing = list.some((i) => typeof i.params.missingProperty === 'string')
    const unknown = list.some((i) => typeof i.params.additionalProperty === 'string')
    const value = missing ? undefined : sentValue(request, context, name, list)
    const message = missing ? 'is required' : unknown ? 'is not accepted' : cut(describe(list), MESSAGE_LIMIT)
    const parameter = cut(name, TEXT_LIMIT)
    const line =
      value === undefined
        ? `Missing ${kind} ${parameter}: ${message}`
        : `Invalid ${kind} ${parameter} ${quote(value)}: ${message}`
    return { parameter, value: value === undefined ? null : echo(value), message, line }
  })
  const { listed, more } = capped(entries)
  const first = entries[0]
  return {
    message: summary(
      listed.map((e) => e.line),
      entries.length,
    ),
    data: {
      parameter: first?.parameter,
      value: first?.value,
      errors: listed.map((e) => ({
        path: `${PATH_PREFIXES[context] ?? context}.${e.parameter}`,
        message: e.message,
        value: e.value,
      })),
      ...(more > 0 ? { more } : {}),
    },
  }
}

/** `body.rewards.0` style paths, naming the missing or unknown property where ajv puts it in params. */
function bodyIssue(issue: AjvIssue): ValidationIssue {
  const path = ['body', ...issue.instancePath.split('/').filter(Boolean)]
  const { missingProperty, additionalProperty } = issue.params
  if (typeof missingProperty === 'string') {
    return { path: cut([...path, missingProperty].join('.'), TEXT_LIMIT), message: 'is required' }
  }
  if (typeof additionalProperty === 'string') {
    return {
      path: cut([...path, additionalProperty].join('.'), TEXT_LIMIT),
      message: 'is not an accepted field',
    }
  }
  const scalar = isScalar(issue.data)
  const allowed = Array.isArray(issue.params.allowedValues)
    ? ` (${issue.params.allowedValues.join(', ')})`
    : ''
  const hint = issue.parentSchema?.[HINT]
  const message = issue.keyword === 'pattern' && typeof hint === 'string' ? hint : issue.message
  return {
    path: cut(path.join('.'), TEXT_LIMIT),
    message: `${cut(`${message ?? 'is invalid'}${allowed}`, MESSAGE_LIMIT)}${scalar ? `, got ${quote(issue.data)}` : ''}`,
    ...(scalar ? { value: echo(issue.data) } : {}),
  }
}

/**
 * A value of the wrong type also fails its schema's enum, whose message would list the allowed values,
 * the sent one among them (`137` against "137"): one issue per value, the type's, naming the values.
 */
function typeBeforeEnum(issues: AjvIssue[]): AjvIssue[] {
  const mistyped = new Set(issues.filter((i) => i.keyword === 'type').map((i) => i.instancePath))
  return issues
    .filter((issue) => !(issue.keyword === 'enum' && mistyped.has(issue.instancePath)))
    .map((issue) => {
      const allowed = issue.parentSchema?.enum
      if (issue.keyword !== 'type' || !Array.isArray(allowed)) return issue
      return { ...issue, message: `${issue.message} (one of ${allowed.join(', ')})` }
    })
}

function explainBody(issues: AjvIssue[]): ValidationExplanation {
  const all = typeBeforeEnum(issues.filter((issue) => issue.keyword !== GUARD_KEYWORD)).map(bodyIssue)
  const { listed, more } = capped(all)
  const data = { errors: listed, ...(more > 0 ? { more } : {}) }
  if (all.some((e) => e.path === 'body' && e.message.startsWith('must be object'))) {
    return { message: 'A JSON object body is required', data }
  }
  return {
    message: summary(
      listed.map((e) => `${e.path} ${e.message}`),
      all.length,
    ),
    data,
  }
}

/** The 400's message and data for a request its route's schema refused. */
export function explainValidation(error: FastifyError, request: FastifyRequest): ValidationExplanation {
  const issues = (error.validation ?? []) as AjvIssue[]
  const context = error.validationContext ?? 'body'
  return context === 'body' ? explainBody(issues) : explainParameters(issues, context, request)
}
