import { createServer, type Server } from 'node:http'

/** An eth_getLogs as a provider sees it: its first and last block, and how many blocks that is. */
export interface LogsSpan {
  from: bigint
  to: bigint
  blocks: number
}

/** The JSON-RPC error a provider answers instead of the logs. */
export interface RpcRefusal {
  code: number
  message: string
  data?: unknown
}

/** How the proxy treats eth_getLogs and the head; every other call goes to the node as it is. */
export interface RpcProxyRules {
  /** A refusal by the range alone, before the node is asked (null: forwarded). */
  range?(span: LogsSpan): RpcRefusal | null
  /** A refusal by the answer (null: the logs are answered). */
  answer?(logs: readonly unknown[], span: LogsSpan): RpcRefusal | null
  /** How long to hold the answer (a range too heavy to answer in time). */
  delayMs?(span: LogsSpan): number
  /**
   * A provider behind the node (a node syncing slowly, or stalled): the head it has given the node's
   * (asked at each call). It answers as such a node does: that eth_blockNumber and `latest` block, no
   * block, receipt or log past its head, and eth_call at `latest` at its head (past it: `header not found`).
   */
  head?(nodeHead: bigint): bigint
  /** Runs before a block asked by number is asked of the node: a test changes the chain between two calls. */
  beforeBlock?(number: bigint): Promise<void> | void
}

export interface RpcProxy {
  url: string
  /** eth_getLogs calls seen, refused by range or by answer, and held back. */
  readonly counts: { logs: number; range: number; answer: number; delayed: number }
  /** The spans of the eth_getLogs calls answered with logs, in order. */
  readonly answered: LogsSpan[]
  /** The numbers of the blocks asked by number (eth_getBlockByNumber with a number, not a tag), in order. */
  readonly blocksAsked: bigint[]
  close(): Promise<void>
}

/**
 * A real JSON-RPC endpoint in front of a node (anvil) that answers eth_getLogs the way a hosted provider
 * does: with its own refusals of wide ranges and large answers, or late. Everything else is forwarded.
 * Batches are answered call by call.
 */
export async function startRpcProxy(target: string, rules: RpcProxyRules): Promise<RpcProxy> {
  const counts = { logs: 0, range: 0, answer: 0, delayed: 0 }
  const answered: LogsSpan[] = []
  const blocksAsked: bigint[] = []
  const forward = async (call: unknown) =>
    (await (
      await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call),
      })
    ).json()) as { result?: unknown; error?: unknown }

  async function answer(call: { id: unknown; method: string; params?: unknown[] }): Promise<object> {
    const refuse = (error: RpcRefusal) => ({ jsonrpc: '2.0', id: call.id, error })
    const tag = call.params?.[0]
    if (call.method === 'eth_getBlockByNumber' && typeof tag === 'string' && tag.startsWith('0x')) {
      blocksAsked.push(BigInt(tag))
      await rules.beforeBlock?.(BigInt(tag))
    }
    if (rules.head && LAGGING.has(call.method)) return behind(call, rules.head)
    if (call.method !== 'eth_getLogs') return forward(call)
    counts.logs++
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string }
    const from = BigInt(filter.fromBlock ?? 0)
    const to = BigInt(filter.toBlock ?? 0)
    const span = { from, to, blocks: Number(to - from) + 1 }
    const byRange = rules.range?.(span)
    if (byRange) {
      counts.range++
      return refuse(byRange)
    }
    const delay = rules.delayMs?.(span) ?? 0
    if (delay > 0) {
      counts.delayed++
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
    const reply = await forward(call)
    if (Array.isArray(reply.result)) {
      const byAnswer = rules.answer?.(reply.result, span)
      if (byAnswer) {
        counts.answer++
        return refuse(byAnswer)
      }
      answered.push(span)
    }
    return reply
  }

  /** What a node behind this one answers (`headOf`: its head given the node's). */
  async function behind(
    call: { id: unknown; method: string; params?: unknown[] },
    headOf: (nodeHead: bigint) => bigint,
  ) {
    const now = BigInt(
      (await forward({ jsonrpc: '2.0', id: call.id, method: 'eth_blockNumber', params: [] }))
        .result as string,
    )
    const head = headOf(now) < now ? headOf(now) : now
    const reply = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result })
    const blockOf = (tag: unknown) => (typeof tag === 'string' && tag.startsWith('0x') ? BigInt(tag) : head)
    const params = call.params ?? []
    switch (call.method) {
      case 'eth_blockNumber':
        return reply(hex(head))
      case 'eth_getBlockByNumber': {
        const number = blockOf(params[0])
        if (number > head) return reply(null)
        return forward({ ...call, params: [hex(number), params[1] ?? false] })
      }
      case 'eth_getTransactionReceipt': {
        const receipt = (await forward(call)).result as { blockNumber?: string } | null
        return reply(receipt?.blockNumber && BigInt(receipt.blockNumber) <= head ? receipt : null)
      }
      case 'eth_getLogs': {
        const logs = ((await forward(call)).result ?? []) as { blockNumber: string }[]
        return reply(logs.filter((log) => BigInt(log.blockNumber) <= head))
      }
      default: {
        // eth_call and eth_getCode: the block tag is the second parameter
        const number = blockOf(params[1])
        if (number > head) {
          return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'header not found' } }
        }
        return forward({ ...call, params: [params[0], hex(number)] })
      }
    }
  }

  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', async () => {
      try {
        const parsed = JSON.parse(body) as unknown
        const calls = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{ id: unknown; method: string }>
        const replies = await Promise.all(calls.map(answer))
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(Array.isArray(parsed) ? replies : replies[0]))
      } catch (err) {
        res.writeHead(502)
        res.end(String(err))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    answered,
    blocksAsked,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const hex = (n: bigint) => `0x${n.toString(16)}`

/** The calls whose answer depends on how far a node has followed the chain. */
const LAGGING = new Set([
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getTransactionReceipt',
  'eth_getLogs',
  'eth_call',
  'eth_getCode',
])

/** Hosted providers' refusals, in their own words (as their documentation and answers give them). */
export const providerRefusals = {
  /** Alchemy: a range over `max` blocks, with the range that would work. */
  alchemy: (max: number) => (span: LogsSpan) =>
    span.blocks > max
      ? {
          code: -32602,
          message:
            `Log response size exceeded. You can make eth_getLogs requests with up to a ${max} block range ` +
            'and no limit on the response size, or you can request any block range with a cap of 10K logs ' +
            `in the response. Based on your parameters, this block range should work: [${hex(span.from)}, ${hex(span.from + BigInt(max) - 1n)}]`,
        }
      : null,
  /** Infura: an answer over `max` logs, with a range that would work in `data`. */
  infura: (max: number) => (logs: readonly unknown[], span: LogsSpan) =>
    logs.length > max
      ? {
          code: -32005,
          message: `query returned more than ${max} results`,
          data: {
            from: hex(span.from),
            to: hex(span.from + BigInt(Math.max(0, Math.floor(span.blocks / 4) - 1))),
            limit: max,
          },
        }
      : null,
  /** QuickNode: a range over `max` blocks, saying the limit. */
  quicknode: (max: number) => (span: LogsSpan) =>
    span.blocks > max
      ? { code: -32614, message: `eth_getLogs is limited to a ${max.toLocaleString('en-US')} range` }
      : null,
  /** A node that says only that the range is too wide. */
  terse: (max: number) => (span: LogsSpan) =>
    span.blocks > max ? { code: -32600, message: 'block range is too wide' } : null,
}
