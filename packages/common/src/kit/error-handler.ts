import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import postgres from 'postgres'
import { codeForStatus, HttpError } from '../errors.js'

interface SchemaIssue {
  path: string
  message: string
  value?: unknown
}

interface AjvIssue {
  instancePath: string
  message?: string
  params: Record<string, unknown>
  data?: unknown
}

const QUOTE_LIMIT = 60

/** The bad value as the caller would recognise it, cut short when long. */
function quote(value: unknown): string {
  const text = typeof value === 'string' ? `"${value}"` : JSON.stringify(value)
  return text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text
}

/** `body.rewards.0` style paths, naming the missing or unknown property where ajv puts it in params. */
function toIssue(context: string, issue: AjvIssue): SchemaIssue {
  const segments = issue.instancePath.split('/').filter(Boolean)
  const path = [context, ...segments]
  const { missingProperty, additionalProperty, allowedValues } = issue.params
  if (typeof missingProperty === 'string')
    return { path: [...path, missingProperty].join('.'), message: 'is required' }
  if (typeof additionalProperty === 'string') {
    return { path: [...path, additionalProperty].join('.'), message: 'is not an accepted field' }
  }
  const allowed = Array.isArray(allowedValues) ? ` (${allowedValues.join(', ')})` : ''
  const got = issue.data === undefined || typeof issue.data === 'object' ? '' : `, got ${quote(issue.data)}`
  return {
    path: path.join('.'),
    message: `${issue.message ?? 'is invalid'}${allowed}${got}`,
    ...(issue.data === undefined || typeof issue.data === 'object' ? {} : { value: issue.data }),
  }
}

function describeValidation(error: FastifyError): { message: string; errors: SchemaIssue[] } {
  const context = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'request')
  const errors = (error.validation as AjvIssue[]).map((issue) => toIssue(context, issue))
  if (context === 'body' && errors.some((e) => e.path === 'body' && e.message.includes('must be object'))) {
    return { message: 'A JSON object body is required', errors }
  }
  return { message: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors }
}

interface Rendered {
  status: number
  code: string
  message: string
  data?: Record<string, unknown> | undefined
}

function render(error: FastifyError | HttpError | Error): Rendered {
  if (error instanceof HttpError) {
    return { status: error.statusCode, code: error.code, message: error.message, data: error.data }
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const { message, errors } = describeValidation(fastifyError)
    return { status: 400, code: 'bad_request', message, data: { errors } }
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'bad_request', message: 'The body is not valid JSON' }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'bad_request', message: 'The body is empty but content-type says JSON' }
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large', message: 'The body is larger than this route accepts' }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        code: 'unsupported_media_type',
        message: 'Unsupported content-type: send application/json',
      }
  }
  // Class 22 (data exception): a value from the request that PostgreSQL cannot take, e.g. a NUL byte or a
  // number out of range, that validation let through. The caller's mistake, not ours.
  if (error instanceof postgres.PostgresError && error.code.startsWith('22')) {
    return {
      status: 400,
      code: 'bad_request',
      message: 'A value in the request is malformed or out of range',
    }
  }
  const status = fastifyError.statusCode
  if (error instanceof SyntaxError && status === 400) {
    return { status: 400, code: 'bad_request', message: 'The body is not valid JSON' }
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, code: codeForStatus[status] ?? 'bad_request', message: error.message }
  }
  return { status: 500, code: 'internal_server_error', message: 'Internal server error' }
}

/** Every error, thrown or raised by Fastify itself, leaves as the error envelope with a matching status. */
export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const rendered = render(error)
    if (rendered.status >= 500) request.log.error({ err: error }, 'request failed')
    else request.log.info({ code: rendered.code, message: rendered.message }, 'request refused')
    const body: Record<string, unknown> = { ok: false, error: rendered.message, code: rendered.code }
    if (rendered.data !== undefined) body.data = rendered.data
    return reply.status(rendered.status).type('application/json; charset=utf-8').send(body)
  })
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      ok: false,
      error: `Route ${request.method} ${request.url.split('?')[0]} not found`,
      code: 'not_found',
    }),
  )
}
