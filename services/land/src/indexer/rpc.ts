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

export interface RpcBlock {
  number: bigint
  hash: string
  parentHash: string
  /** Seconds since epoch. */
  timestamp: number
}

export interface RpcCall {
  method: string
  params: unknown[]
}

interface Answer<T> {
  id?: unknown
  result?: T
  error?: { code: number; message: string; data?: unknown }
}

/** A node takes requests up to a size (anvil: 2 MB): a batch is sent in parts of at most this many bytes. */
const MAX_BATCH_BYTES = 1_000_000

/**
 * JSON-RPC over fetch, with a timeout on each request: single calls and batches (one request, answered in
 * order by the node: the order transactions are sent in is the order of the block). Used by the indexer and
 * by the chain demo; ethers' provider does much more work to decode a large answer, and nothing of it is
 * needed for the few calls made.
 */
export class Rpc {
  private id = 0

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  private async post(body: string, what: string): Promise<unknown> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    })
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new Error(`${what}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`)
    }
    // an HTTP error may still carry the node's JSON-RPC error, which says more
    if (!res.ok && !(parsed as Answer<unknown> | null)?.error) throw new Error(`${what}: HTTP ${res.status}`)
    return parsed
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const answer = (await this.post(
      JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
      method,
    )) as Answer<T>
    if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data)
    return answer.result as T
  }

  /**
   * The calls' results, in order, in as few requests as the node's size limit allows. The first error
   * answered is thrown. A node that does not take batches (its answer is not a list) is asked one call at
   * a time.
   */
  async batch<T>(calls: readonly RpcCall[]): Promise<T[]> {
    const out: T[] = []
    for (const part of partsBySize(calls, MAX_BATCH_BYTES)) {
      const first = this.id + 1
      this.id += part.length
      const body = `[${part.map((c, i) => JSON.stringify({ jsonrpc: '2.0', id: first + i, ...c })).join(',')}]`
      const answers = await this.post(body, `${part[0]!.method} batch`)
      if (!Array.isArray(answers)) {
        for (const c of part) out.push(await this.call<T>(c.method, c.params))
        continue
      }
      const byId = new Map((answers as Answer<T>[]).map((a) => [a.id, a]))
      for (const [i, c] of part.entries()) {
        const answer = byId.get(first + i)
        if (!answer) throw new Error(`${c.method}: no answer in the batch`)
        if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data)
        out.push(answer.result as T)
      }
    }
    return out
  }

  async blockNumber(): Promise<bigint> {
    return BigInt(await this.call<string>('eth_blockNumber', []))
  }

  async chainId(): Promise<bigint> {
    return BigInt(await this.call<string>('eth_chainId', []))
  }

  /** The node's software (`anvil/v1.2.3`...), or '' when it does not say. */
  async clientVersion(): Promise<string> {
    return this.call<string>('web3_clientVersion', []).catch(() => '')
  }

  /** The canonical block at `number`, or null when the node has none (yet). */
  async block(number: bigint): Promise<RpcBlock | null> {
    return blockOf(await this.call<RawBlock | null>('eth_getBlockByNumber', [hex(number), false]))
  }

  /** The canonical blocks at `numbers` (null where the node has none), a hundred headers a batch. */
  async blocks(numbers: readonly bigint[]): Promise<Array<RpcBlock | null>> {
    const out: Array<RpcBlock | null> = []
    for (let i = 0; i < numbers.length; i += 100) {
      const part = numbers.slice(i, i + 100)
      const raw = await this.batch<RawBlock | null>(
        part.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
      )
      out.push(...raw.map(blockOf))
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
