import type { RpcLog } from './events.js'

/** An error the node answered (JSON-RPC `error`), as opposed to the node being unreachable. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/**
 * Providers refuse an eth_getLogs whose block range or result is too large with an error rather than a
 * partial answer; their codes and wordings differ (-32005 "query returned more than 10000 results", -32602
 * "block range is too large", "exceed maximum block range", "Log response size exceeded"...). Any of them
 * means: ask for fewer blocks.
 */
export function isRangeTooLarge(error: unknown): boolean {
  if (!(error instanceof RpcError)) return false
  if (error.code === -32005) return true
  return /range|too many|more than|exceed|too large|response size|limit/i.test(error.message)
}

export interface RpcBlock {
  number: bigint
  hash: string
  parentHash: string
  /** Seconds since epoch. */
  timestamp: number
}

/** True when a call got no answer in time (the node may be down, or the answer too large to make in time). */
export const isTimeout = (error: unknown): boolean =>
  (error as { name?: unknown } | null)?.name === 'TimeoutError'

/** The few JSON-RPC calls the indexer makes, over fetch, with a timeout on each. */
export class Rpc {
  private id = 0

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    })
    const text = await res.text()
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } }
    try {
      body = JSON.parse(text)
    } catch {
      throw new Error(`${method}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`)
    }
    if (body.error) throw new RpcError(body.error.code, body.error.message, body.error.data)
    if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`)
    return body.result as T
  }

  async blockNumber(): Promise<bigint> {
    return BigInt(await this.call<string>('eth_blockNumber', []))
  }

  /** The canonical block at `number`, or null when the node has none (yet). */
  async block(number: bigint): Promise<RpcBlock | null> {
    return blockOf(await this.call<RawBlock | null>('eth_getBlockByNumber', [hex(number), false]))
  }

  /**
   * The canonical blocks at `numbers` (null where the node has none), in JSON-RPC batches of up to 100 calls:
   * one round trip per hundred headers. A node that does not take batches is asked one block at a time.
   */
  async blocks(numbers: readonly bigint[]): Promise<Array<RpcBlock | null>> {
    const out: Array<RpcBlock | null> = []
    for (let i = 0; i < numbers.length; i += 100) {
      const part = numbers.slice(i, i + 100)
      const first = this.id + 1
      this.id += part.length
      const body = part.map((n, k) => ({
        jsonrpc: '2.0',
        id: first + k,
        method: 'eth_getBlockByNumber',
        params: [hex(n), false],
      }))
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      const text = await res.text()
      let answers: unknown
      try {
        answers = JSON.parse(text)
      } catch {
        answers = null
      }
      if (!Array.isArray(answers)) {
        for (const n of part) out.push(await this.block(n))
        continue
      }
      const byId = new Map<number, { result?: RawBlock | null; error?: { code: number; message: string } }>()
      for (const a of answers as Array<{
        id: number
        result?: RawBlock | null
        error?: { code: number; message: string }
      }>)
        byId.set(a.id, a)
      for (let k = 0; k < part.length; k++) {
        const answer = byId.get(first + k)
        if (!answer) throw new Error(`eth_getBlockByNumber: no answer for block ${part[k]} in a batch`)
        if (answer.error) throw new RpcError(answer.error.code, answer.error.message)
        out.push(blockOf(answer.result ?? null))
      }
    }
    return out
  }

  logs(filter: {
    fromBlock: bigint
    toBlock: bigint
    address: string[]
    topics: string[][]
  }): Promise<RpcLog[]> {
    return this.call<RpcLog[]>('eth_getLogs', [
      {
        fromBlock: hex(filter.fromBlock),
        toBlock: hex(filter.toBlock),
        address: filter.address,
        topics: filter.topics,
      },
    ])
  }
}

const hex = (n: bigint) => `0x${n.toString(16)}`

interface RawBlock {
  number: string
  hash: string
  parentHash: string
  timestamp: string
}

const blockOf = (raw: RawBlock | null): RpcBlock | null =>
  raw
    ? {
        number: BigInt(raw.number),
        hash: raw.hash.toLowerCase(),
        parentHash: raw.parentHash.toLowerCase(),
        timestamp: Number(BigInt(raw.timestamp)),
      }
    : null
