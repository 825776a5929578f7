import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

const gzipAsync = promisify(gzip)
const brotliAsync = promisify(brotliCompress)

export type Encoding = 'br' | 'gzip' | 'identity'

/**
 * One serialised answer kept in memory with its compressed forms, each made once (on the zlib thread
 * pool, off the event loop) the first time a client asks for it.
 */
export class CachedBody {
  private readonly compressed = new Map<Encoding, Promise<Buffer>>()
  constructor(readonly json: Buffer) {}

  get bytes(): number {
    return this.json.length
  }

  encoded(encoding: Encoding): Promise<Buffer> {
    if (encoding === 'identity') return Promise.resolve(this.json)
    let pending = this.compressed.get(encoding)
    if (!pending) {
      pending =
        encoding === 'gzip'
          ? gzipAsync(this.json, { level: 6 })
          : brotliAsync(this.json, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 5,
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_SIZE_HINT]: this.json.length,
              },
            })
      this.compressed.set(encoding, pending)
      // A failed compression is not cached, the next request tries again.
      pending.catch(() => this.compressed.delete(encoding))
    }
    return pending
  }
}

/** The best encoding the client accepts among br, gzip and identity (RFC 9110 q-values). */
export function negotiateEncoding(header: string | undefined): Encoding {
  if (!header) return 'identity'
  const weights = new Map<string, number>()
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    let q = 1
    for (const param of params) {
      const [key, value] = param.trim().split('=')
      if (key === 'q' && value !== undefined) q = Number.parseFloat(value)
    }
    weights.set(name, Number.isFinite(q) ? q : 0)
  }
  const weight = (name: string) => weights.get(name) ?? weights.get('*') ?? 0
  const br = weight('br')
  const gz = weight('gzip')
  if (br > 0 && br >= gz) return 'br'
  if (gz > 0) return 'gzip'
  return 'identity'
}

/** A small LRU bounded by total bytes. */
export class ByteLru<V extends { bytes: number }> {
  private readonly entries = new Map<string, V>()
  private total = 0
  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  set(key: string, value: V): void {
    if (value.bytes > this.maxBytes) return
    const previous = this.entries.get(key)
    if (previous) {
      this.total -= previous.bytes
      this.entries.delete(key)
    }
    this.entries.set(key, value)
    this.total += value.bytes
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break
      this.entries.delete(oldest)
      this.total -= entry.bytes
    }
  }
}
