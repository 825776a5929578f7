/*
 * JSON-RPC over fetch to one endpoint, with a deadline on each request: single calls and batches (one
 * request, answered in order by the node). What a provider pool (providers.ts) sends through; ethers'
 * provider does much more work to decode a large answer, and nothing of it is needed for the calls made.
 */

/** An error the node answered (JSON-RPC `error`), as opposed to the node being unreachable. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
    this.name = 'RpcError'
  }
}

/**
 * The endpoint gave no usable answer: refused, reset, silent past the deadline, an HTTP error without a
 * JSON-RPC one, or not JSON. `cause` is what failed (a TimeoutError when the deadline passed). The message
 * never holds the URL, which may carry a password or an API key.
 */
export class RpcUnreachable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'RpcUnreachable'
  }
}

export interface RpcCall {
  method: string
  params: unknown[]
}

/** One call's answer: its result, or the node's error. */
export interface RpcAnswer<T = unknown> {
  result?: T
  error?: { code: number; message: string; data?: unknown }
}

/** The node's error of an answer, as an RpcError; the result otherwise. */
export function resultOf<T>(answer: RpcAnswer<T>): T {
  if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data)
  return answer.result as T
}

/** A node takes requests up to a size (anvil: 2 MB): a batch is sent in parts of at most this many bytes. */
const MAX_BATCH_BYTES = 1_000_000

/** What failed, in one line: the cause's own words (`connect ECONNREFUSED 127.0.0.1:8545`), no URL. */
function transportReason(error: unknown, timeoutMs: number): string {
  const object = error as { name?: string; message?: string; cause?: { message?: string; code?: string } }
  if (object?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`
  const cause = object?.cause
  if (cause?.message) return cause.message.split('\n')[0]!
  return String(object?.message ?? error).split('\n')[0]!
}

export class JsonRpcEndpoint {
  private id = 0
  /** HTTP requests sent so far (a batch counts once). */
  requests = 0
  /** The URL without its user info, which fetch refuses: sent as basic authentication instead. */
  private readonly target: string
  private readonly headers: Record<string, string> = { 'content-type': 'application/json' }

  constructor(
    url: string,
    readonly timeoutMs = 10_000,
  ) {
    const parsed = new URL(url)
    if (parsed.username || parsed.password) {
      const user = decodeURIComponent(parsed.username)
      const password = decodeURIComponent(parsed.password)
      this.headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
      parsed.username = ''
      parsed.password = ''
    }
    this.target = parsed.toString()
  }

  private async post(body: string): Promise<unknown> {
    let res: Response
    let text: string
    this.requests++
    try {
      res = await fetch(this.target, {
        method: 'POST',
        headers: this.headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      text = await res.text()
    } catch (error) {
      // the reason in the library's words, the URL (its path may hold an API key) cut out of them
      const reason = transportReason(error, this.timeoutMs).replaceAll(this.target, '<url>')
      throw new RpcUnreachable(reason, { cause: error })
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new RpcUnreachable(`HTTP ${res.status}, not JSON: ${text.slice(0, 120)}`)
    }
    // an HTTP error may still carry the node's JSON-RPC error, which says more
    if (!res.ok && !(parsed as RpcAnswer | null)?.error) {
      throw new RpcUnreachable(`HTTP ${res.status}`)
    }
    return parsed
  }

  /** One call's answer (the node's error included, not thrown). */
  async answer<T>(call: RpcCall): Promise<RpcAnswer<T>> {
    const answer = (await this.post(
      JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method: call.method, params: call.params }),
    )) as RpcAnswer<T> | null
    if (!answer || typeof answer !== 'object' || Array.isArray(answer)) {
      throw new RpcUnreachable(`${call.method}: the answer is not a JSON-RPC answer`)
    }
    return answer
  }

  /**
   * The calls' answers, in order, in as few requests as the node's size limit allows (a single call is
   * sent alone). A node that does not take batches (its answer is not a list) is asked one call at a time.
   */
  async send<T = unknown>(calls: readonly RpcCall[]): Promise<RpcAnswer<T>[]> {
    if (calls.length === 1) return [await this.answer<T>(calls[0]!)]
    const out: RpcAnswer<T>[] = []
    for (const part of partsBySize(calls, MAX_BATCH_BYTES)) {
      const first = this.id + 1
      this.id += part.length
      const body = `[${part.map((c, i) => JSON.stringify({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })).join(',')}]`
      const answers = await this.post(body)
      if (!Array.isArray(answers)) {
        for (const c of part) out.push(await this.answer<T>(c))
        continue
      }
      const byId = new Map((answers as (RpcAnswer<T> & { id?: unknown })[]).map((a) => [a.id, a]))
      for (const [i, c] of part.entries()) {
        const answer = byId.get(first + i)
        if (!answer) throw new RpcUnreachable(`${c.method}: no answer in the batch`)
        out.push(answer)
      }
    }
    return out
  }
}

function partsBySize<T>(items: readonly T[], maxBytes: number): T[][] {
  const out: T[][] = []
  let part: T[] = []
  let bytes = 0
  for (const item of items) {
    const size = JSON.stringify(item).length
    if (part.length > 0 && bytes + size > maxBytes) {
      out.push(part)
      part = []
      bytes = 0
    }
    part.push(item)
    bytes += size
  }
  if (part.length > 0) out.push(part)
  return out
}
