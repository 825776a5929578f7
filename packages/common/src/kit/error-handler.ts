import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import postgres from 'postgres'
import { isDatabaseUnavailable } from '../db/unreachable.js'
import { codeForStatus, HttpError } from '../errors.js'
import { explainValidation } from './explain-validation.js'

interface Rendered {
  status: number
  code: string
  message: string
  data?: Record<string, unknown> | undefined
  /** Seconds, for a 503 (or 429) that passes. */
  retryAfterS?: number
}

/** What a client should wait before trying again while the database is unreachable. */
export const DATABASE_RETRY_AFTER_S = 5
/** Messages of framework errors can quote the request (a URL, a content-type): never more than this. */
const MESSAGE_LIMIT = 200

/** Fastify's own refusals, in our words and codes. */
const FRAMEWORK_ERRORS: Readonly<Record<string, Omit<Rendered, 'data'>>> = {
  FST_ERR_BAD_URL: {
    status: 400,
    code: 'bad_request',
    message: 'The URL is malformed: a bad percent escape or invalid UTF-8',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    code: 'uri_too_long',
    message: 'A path segment is longer than this service accepts',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'bad_request', message: 'The body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'bad_request',
    message: 'The body is empty but content-type says JSON',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'payload_too_large',
    message: 'The body is larger than this route accepts',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Unsupported content-type: send application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'bad_request',
    message: 'The content-length does not match the body',
  },
  FST_ERR_CTP_EMPTY_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'The content-type is empty',
  },
  FST_ERR_CTP_INVALID_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'The content-type is malformed',
  },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'bad_request', message: 'The request matches no route' },
  FST_ERR_NOT_FOUND: { status: 404, code: 'not_found', message: 'Not found' },
}

const cut = (text: string) => (text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text)

function render(error: FastifyError | HttpError | Error, request: FastifyRequest): Rendered {
  if (error instanceof HttpError) {
    const rendered: Rendered = {
      status: error.statusCode,
      code: error.code,
      message: error.message,
      data: error.data,
    }
    if (error.retryAfterS !== undefined) rendered.retryAfterS = error.retryAfterS
    return rendered
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const { message, data } = explainValidation(fastifyError, request)
    return { status: 400, code: 'bad_request', message, data }
  }
  const known = fastifyError.code === undefined ? undefined : FRAMEWORK_ERRORS[fastifyError.code]
  if (known) return known
  if (isDatabaseUnavailable(error)) {
    return {
      status: 503,
      code: 'service_unavailable',
      message: 'The database is unavailable; retry shortly',
      retryAfterS: DATABASE_RETRY_AFTER_S,
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
    return { status, code: codeForStatus[status] ?? 'bad_request', message: cut(error.message) }
  }
  return { status: 500, code: 'internal_server_error', message: 'Internal server error' }
}

/** Sends any error, thrown by a route or raised by Fastify itself, as the error envelope. */
export function sendError(error: Error, request: FastifyRequest, reply: FastifyReply) {
  const rendered = render(error, request)
  if (rendered.status >= 500 && rendered.status !== 503) request.log.error({ err: error }, 'request failed')
  else if (rendered.status === 503 && !(error instanceof HttpError))
    request.log.warn({ err: error }, 'database unavailable')
  // a 503 the service chose (overloaded, a node it cannot read): worth an operator's eye, no stack to show
  else {
    // What a library said, when the service put it in its own words for the client: for the log only.
    const detail =
      error instanceof HttpError && typeof error.cause === 'string' ? { detail: error.cause } : {}
    const line = { code: rendered.code, message: rendered.message, ...detail }
    if (rendered.status === 503) request.log.warn(line, 'request refused')
    else request.log.info(line, 'request refused')
  }
  const body: Record<string, unknown> = { ok: false, error: rendered.message, code: rendered.code }
  if (rendered.data !== undefined) body.data = rendered.data
  if (rendered.retryAfterS !== undefined) reply.header('retry-after', String(rendered.retryAfterS))
  return reply.status(rendered.status).type('application/json; charset=utf-8').send(body)
}

/** Errors of the HTTP parser, before there is a request (a malformed request line, huge headers). */
const CLIENT_ERRORS: Readonly<Record<string, [number, string, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'request_header_fields_too_large', 'The request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request took too long to arrive'],
}

/** A whole HTTP/1.1 error answer in the envelope, for a socket no Fastify reply stands for. */
function rawAnswer(status: number, code: string, message: string): string {
  const body = JSON.stringify({ ok: false, error: message, code })
  return (
    `HTTP/1.1 ${status} ${code}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

/** The HTTP parser's refusals, in the envelope too (Fastify's own writes a body of its own shape). */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    400,
    'bad_request',
    'The request is not valid HTTP',
  ]
  if (socket.writable) socket.write(rawAnswer(status, code, message))
  socket.destroy(error)
}

function answer(response: ServerResponse, status: number, code: string, message: string) {
  const body = JSON.stringify({ ok: false, error: message, code })
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  })
  response.end(body)
}

/**
 * The requests Node answers itself, before Fastify sees them, with an empty body: an HTTP/1.1 request
 * without Host (400), an Expect other than 100-continue (417), and CONNECT (no answer at all, the socket
 * dropped). The kit answers them in the envelope. The Host check needs the server's own refusal off
 * (`http: { requireHostHeader: false }` in the Fastify options), so it runs first on every request: one
 * property read.
 */
export function answerNodeRefusals(server: Server) {
  const handlers = server.listeners('request') as RequestListener[]
  const handle = handlers[0]
  if (handlers.length === 1 && handle !== undefined) {
    server.removeAllListeners('request')
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (
        request.headers.host === undefined &&
        request.httpVersionMajor === 1 &&
        request.httpVersionMinor === 1
      ) {
        answer(response, 400, 'bad_request', 'An HTTP/1.1 request must have a Host header')
        return
      }
      handle(request, response)
    })
  }
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    answer(response, 417, 'expectation_failed', 'The only expectation this service meets is 100-continue')
  })
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {})
    socket.end(rawAnswer(400, 'bad_request', 'CONNECT is not supported: this service is not a proxy'))
  })
}

/** Every error, thrown or raised by Fastify itself, leaves as the error envelope with a matching status. */
export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    sendError(error, request, reply),
  )
}

/** The answer to a request that matches no route. */
export const notFound = (request: FastifyRequest, reply: FastifyReply) =>
  reply.status(404).send({
    ok: false,
    error: cut(`Route ${request.method} ${request.url.split('?')[0]} not found`),
    code: 'not_found',
  })
