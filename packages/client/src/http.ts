import { GenesisApiError } from './errors.js'
import type { Identity } from './identity.js'
import { nonce, signedHeaders } from './signed-fetch.js'

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

export interface ServiceOptions {
  /** The service's base URL, e.g. `http://localhost:3001` (no trailing path needed). */
  baseUrl: string
  /** Signs the calls that need signed fetch; calls that need it fail before sending without one. */
  identity?: Identity | undefined
  /** Defaults to the global fetch (Node ≥ 18, browsers). */
  fetch?: FetchLike | undefined
}

export type QueryValue = string | number | boolean | undefined
export type Query = Record<string, QueryValue>

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  query?: Query | undefined
  body?: unknown
  auth?: 'signed' | { bearer: string } | undefined
  headers?: Record<string, string> | undefined
}

export interface Answer<T> {
  status: number
  headers: Headers
  /** The envelope's `data`; undefined for a 204. */
  data: T
  pagination?: { page: number; limit: number; total: number; pages: number; next_cursor?: string | null }
}

const queryString = (query: Query | undefined): string => {
  if (!query) return ''
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** One service's HTTP transport: builds the URL, signs, sends, and unwraps the envelope. */
export class ServiceHttp {
  readonly baseUrl: string
  readonly identity: Identity | undefined
  private readonly fetch: FetchLike

  constructor(options: ServiceOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.identity = options.identity
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  }

  url(path: string, query?: Query): string {
    return `${this.baseUrl}${path}${queryString(query)}`
  }

  async request<T>(options: RequestOptions): Promise<Answer<T>> {
    const url = this.url(options.path, options.query)
    const label = `${options.method} ${url}`
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    if (options.auth === 'signed') {
      if (!this.identity) throw new Error(`${label} needs signed fetch: give the client an identity`)
      // The path as the server sees it (a base URL may carry a prefix), with a nonce so that parallel
      // requests signed in the same millisecond are not taken for replays.
      Object.assign(
        headers,
        signedHeaders(this.identity, options.method, new URL(url).pathname, { metadata: { nonce: nonce() } }),
      )
    } else if (options.auth) headers.authorization = `Bearer ${options.auth.bearer}`

    let response: Response
    try {
      response = await this.fetch(url, {
        method: options.method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      })
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause)
      throw new GenesisApiError(0, 'network_error', `${label}: no answer (${reason})`, undefined, label, {
        cause,
      })
    }
    if (response.status === 204) return { status: 204, headers: response.headers, data: undefined as T }
    const text = await response.text()
    let envelope: unknown
    try {
      envelope = JSON.parse(text)
    } catch {
      envelope = undefined
    }
    if (isRecord(envelope) && envelope.ok === true && response.ok) {
      return {
        status: response.status,
        headers: response.headers,
        data: envelope.data as T,
        ...(isRecord(envelope.pagination)
          ? { pagination: envelope.pagination as NonNullable<Answer<T>['pagination']> }
          : {}),
      }
    }
    if (isRecord(envelope) && envelope.ok === false && typeof envelope.code === 'string') {
      throw new GenesisApiError(
        response.status,
        envelope.code,
        typeof envelope.error === 'string' ? envelope.error : envelope.code,
        isRecord(envelope.data) ? envelope.data : undefined,
        label,
      )
    }
    throw new GenesisApiError(
      response.status,
      'unexpected_response',
      `${label}: HTTP ${response.status} without the service's envelope: ${text.slice(0, 200)}`,
      undefined,
      label,
    )
  }
}
