/*
 * How many blocks one eth_getLogs may cover, learned from the provider. Providers refuse a range that is too
 * wide, or whose answer would be too large, with an error instead of a partial answer, and each says so in
 * its own words (some with the range that would work); a range holding too many logs may also simply not
 * be answered in time. Every service that reads logs over a block range asks through one LogRange, so that
 * such a refusal narrows the next request instead of stopping the reader for good.
 */

/** What a JSON-RPC error says, wherever the client library put it. */
interface RpcErrorParts {
  code: number | undefined
  message: string
  data: unknown
}

const objectOf = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null

/**
 * The node's own error: a plain JSON-RPC error object, an Error carrying one (`code`/`message`/`data`),
 * or ethers' wrapping (`error`, `info.error`), looked for a few levels deep.
 */
function rpcErrorParts(error: unknown): RpcErrorParts[] {
  const found: RpcErrorParts[] = []
  const visit = (value: unknown, depth: number) => {
    const object = objectOf(value)
    if (!object || depth > 3) return
    const message = typeof object.message === 'string' ? object.message : undefined
    if (message !== undefined) {
      found.push({
        code: typeof object.code === 'number' ? object.code : undefined,
        message,
        data: object.data,
      })
    }
    visit(object.error, depth + 1)
    visit(objectOf(object.info)?.error, depth + 1)
    visit(object.cause, depth + 1)
  }
  visit(error, 0)
  // the node's own words first: a client's wrapping message quotes the whole request too
  return found.reverse()
}

/** Rate limits share wordings (and Infura's -32005) with range refusals: asking for fewer blocks does not help. */
const RATE_LIMITED = /rate limit|too many requests|requests per second|compute units|capacity|throughput/i
/** Wordings of a refused range or result size (Alchemy, Infura, QuickNode, Ankr, geth, Erigon, BSC...). */
const RANGE_REFUSED =
  /block range|range (is )?too (large|wide|big)|range limit|max(imum)? (block )?range|exceed|too many|more than|too large|response size|limit|reduc(e|ing) (your|the) (block )?range|query timeout/i

const hex = /0x[0-9a-f]+/i

/** Infura puts the range that would work in `data: { from, to }`; Alchemy writes `[0x…, 0x…]` in the message. */
function suggestedRange(parts: RpcErrorParts): { from: bigint; to: bigint } | null {
  const data = objectOf(parts.data)
  if (data && typeof data.from === 'string' && typeof data.to === 'string') {
    if (hex.test(data.from) && hex.test(data.to)) return { from: BigInt(data.from), to: BigInt(data.to) }
  }
  const pair = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(parts.message)
  return pair ? { from: BigInt(pair[1]!), to: BigInt(pair[2]!) } : null
}

/** `10,000`, `10000`, `2K`, `5k` → the number. */
const quantity = (text: string): number => {
  const k = /k$/i.test(text)
  return Number(text.replace(/[,_k]/gi, '')) * (k ? 1000 : 1)
}
const NUMBER = String.raw`(\d[\d,_]*k?)`

/**
 * The widest block range the provider says it accepts ("up to a 2K block range", "limited to a 10,000
 * range", "maximum block range: 5000", "block range greater than 2000 max"...). A number counted in results
 * or logs ("more than 10000 results") is a limit on the answer, not on the blocks: not read.
 */
function statedMaximum(message: string): number | null {
  const patterns = [
    new RegExp(String.raw`${NUMBER}\s*(?:-\s*)?blocks?\b(?!\s*(?:results|logs))`, 'i'),
    new RegExp(String.raw`${NUMBER}\s+(?:block\s+)?range`, 'i'),
    new RegExp(
      String.raw`(?:max(?:imum)?|limit(?:ed)?|up to)\b[^.\d]{0,40}?${NUMBER}(?!\s*(?:results|logs|log|entries))\b`,
      'i',
    ),
    new RegExp(String.raw`range[^.\d]{0,30}?${NUMBER}\s*max`, 'i'),
  ]
  if (/\b(results|logs)\b/i.test(message) && !/\bblock/i.test(message)) return null
  for (const pattern of patterns) {
    const match = pattern.exec(message)
    if (!match) continue
    const n = quantity(match[1]!)
    if (Number.isSafeInteger(n) && n >= 1) return n
  }
  return null
}

/** True when a call got no answer in time (fetch's AbortSignal.timeout, ethers' TIMEOUT, a socket timeout). */
export function isTimeoutError(error: unknown): boolean {
  const object = objectOf(error)
  if (!object) return false
  return (
    object.name === 'TimeoutError' ||
    object.code === 'TIMEOUT' ||
    object.code === 'ETIMEDOUT' ||
    object.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    isTimeoutError(object.cause)
  )
}

/** How a provider refused a range: what to ask for next, if anything smaller can help. */
export interface RangeRefusal {
  /** The range the provider said would work (its first block is the one asked from). */
  suggested?: { from: bigint; to: bigint }
  /** The widest range the provider said it takes. */
  maximum?: number
  timeout?: boolean
}

/**
 * Whether an eth_getLogs error is the provider refusing the range or the size of its answer (or not
 * answering in time), and what it suggested; null for any other error (the node down, a bad filter, a rate
 * limit), which a narrower range would not help.
 */
export function rangeRefusal(error: unknown): RangeRefusal | null {
  if (isTimeoutError(error)) return { timeout: true }
  for (const parts of rpcErrorParts(error)) {
    if (RATE_LIMITED.test(parts.message)) return null
    const suggested = suggestedRange(parts)
    const maximum = statedMaximum(parts.message)
    if (suggested || maximum !== null || parts.code === -32005 || RANGE_REFUSED.test(parts.message)) {
      return { ...(suggested ? { suggested } : {}), ...(maximum !== null ? { maximum } : {}) }
    }
  }
  return null
}

export interface LogRangeOptions {
  /** The widest range ever asked for. */
  max: number
  /** Full-width answers in a row before the range doubles back towards `max`. */
  growAfter?: number
}

/**
 * The number of blocks the next eth_getLogs covers. A refusal narrows it: to the range the provider
 * suggested, else to the maximum it stated, else to half the range refused; a timeout halves it too. A
 * stated maximum is remembered as a ceiling (asking past it again would only be refused again); after
 * `growAfter` full-width answers in a row the range doubles, back up to the ceiling or `max`, since a
 * refusal for a range holding many logs says nothing of the next, quieter blocks.
 */
export class LogRange {
  private width: number
  private ceiling: number
  private streak = 0
  private readonly growAfter: number

  constructor(options: LogRangeOptions) {
    if (!Number.isSafeInteger(options.max) || options.max < 1) throw new Error('LogRange: max must be ≥ 1')
    this.width = options.max
    this.ceiling = options.max
    this.growAfter = options.growAfter ?? 1
  }

  /** The current width, in blocks. */
  get size(): number {
    return this.width
  }

  /** The range to ask for next from `from`, never past `head`. */
  next(from: bigint, head: bigint): { from: bigint; to: bigint } {
    const to = from + BigInt(this.width) - 1n
    return { from, to: to < head ? to : head }
  }

  /** The range from..to was answered. */
  answered(from: bigint, to: bigint): void {
    if (Number(to - from) + 1 < this.width) return // the head cut it short: says nothing of the width
    this.streak++
    if (this.streak >= this.growAfter && this.width < this.ceiling) {
      this.width = Math.min(this.ceiling, this.width * 2)
      this.streak = 0
    }
  }

  /**
   * The range from..to was refused with `error`. True when the range narrowed (ask again); false when the
   * error is not a refusal of the range, or a single block was refused (then the caller fails).
   */
  refused(error: unknown, from: bigint, to: bigint): boolean {
    const refusal = rangeRefusal(error)
    const asked = Number(to - from) + 1
    if (!refusal || asked <= 1) return false
    this.streak = 0
    let next = Math.floor(asked / 2)
    if (refusal.maximum !== undefined && refusal.maximum < asked) {
      next = refusal.maximum
      this.ceiling = Math.min(this.ceiling, refusal.maximum)
    }
    const { suggested } = refusal
    if (suggested && suggested.from === from && suggested.to >= from && suggested.to < to) {
      next = Number(suggested.to - from) + 1
    }
    this.width = Math.max(1, Math.min(next, asked - 1))
    return true
  }
}

/**
 * eth_getLogs from `from` over as many blocks as the provider accepts, never past `head`: asks `read` for a
 * range, narrowing it on each refusal. Returns what `read` answered and the last block it covers.
 * `onNarrowed` is told each time the range narrows (for a log line).
 */
export async function readLogRange<T>(
  range: LogRange,
  from: bigint,
  head: bigint,
  read: (from: bigint, to: bigint) => Promise<T>,
  onNarrowed?: (width: number, error: unknown) => void,
): Promise<{ result: T; to: bigint }> {
  for (;;) {
    const span = range.next(from, head)
    try {
      const result = await read(span.from, span.to)
      range.answered(span.from, span.to)
      return { result, to: span.to }
    } catch (error) {
      if (!range.refused(error, span.from, span.to)) throw error
      onNarrowed?.(range.size, error)
    }
  }
}
