import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'

export interface HttpResponse {
  status: number
  headers: IncomingHttpHeaders
  /** The body as sent on the wire (still compressed when content-encoding says so). */
  raw: Buffer
  /** The body after content-encoding is undone. */
  body: Buffer
  text: string
  json<T = unknown>(): T
}

export interface HttpRequest {
  port: number
  path: string
  method?: string
  /** Sent as the Host header (fetch cannot set it; node:http can). */
  host?: string
  headers?: Record<string, string>
  body?: string | Buffer
  timeoutMs?: number
}

function decode(raw: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'gzip') return gunzipSync(raw)
  if (encoding === 'br') return brotliDecompressSync(raw)
  return raw
}

/** One HTTP/1.1 request to 127.0.0.1 with full control of the Host header and raw path. */
export function send(options: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    let answered = false
    const headers: Record<string, string> = { ...options.headers }
    if (options.host) headers.host = options.host
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body))
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers,
        agent: false,
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        answered = true
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () => {
          const raw = Buffer.concat(chunks)
          const body = decode(raw, res.headers['content-encoding'])
          const text = body.toString('utf8')
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            raw,
            body,
            text,
            json: <T>() => JSON.parse(text) as T,
          })
        })
      },
    )
    req.on('timeout', () => req.destroy(new Error(`timed out: ${options.method ?? 'GET'} ${options.path}`)))
    // A server may answer (e.g. 413) before it has read the whole body and then close: the answer counts,
    // so a broken pipe fails the request only if no answer follows.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error)
      else setTimeout(() => answered || reject(error), 2000)
    })
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })
}

export interface ErrorEnvelope {
  ok: false
  error: string
  code: string
  data?: unknown
}
