import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from 'node:zlib'

const gzipAsync = promisify(gzip)
const brotliAsync = promisify(brotliCompress)

export type Encoding = 'br' | 'gzip' | 'identity'

/** Bodies up to this size are joined into one buffer: sent in one write, compressed in one call. */
const JOIN_BELOW_BYTES = 64 * 1024

const GZIP_OPTIONS = { level: 6 }
/**
 * A 256 KiB window rather than brotli's default 4 MiB: the JSON repeats itself within a few rows, so the
 * answers are barely larger, compression is about twice as fast, and the zlib thread that compresses a
 * whole-grid answer needs under half the memory (memory a thread's allocator keeps once it has it).
 */
const BROTLI_WINDOW_BITS = 18
const brotliOptions = (size: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 5,
    [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
  },
})

/** Compresses a body given as slices without joining them first (a joined copy of a large one is what we avoid). */
async function compressChunks(chunks: readonly Buffer[], encoding: 'br' | 'gzip', size: number) {
  const out: Buffer[] = []
  await pipeline(
    Readable.from(chunks),
    encoding === 'gzip' ? createGzip(GZIP_OPTIONS) : createBrotliCompress(brotliOptions(size)),
    async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) out.push(chunk)
    },
  )
  return Buffer.concat(out)
}

/**
 * One serialised answer kept in memory with its compressed forms, each made once (on the zlib thread
 * pool, off the event loop) the first time a client asks for it. A large answer is a list of slices of
 * buffers the index holds anyway (the rows of every parcel's JSON), so keeping it costs only its own
 * few bytes (head, tail) and its compressed forms.
 */
export class CachedBody {
  private readonly compressed = new Map<Encoding, Promise<Buffer>>()
  private compressedBytes = 0
  private readonly ownBytes: number
  private listener: (() => void) | undefined
  /** The answer's bytes in order (one buffer for a small answer). */
  readonly chunks: readonly Buffer[]
  /** Length of the uncompressed answer. */
  readonly size: number

  /** `shared`: how many of the chunks' bytes belong to buffers kept elsewhere anyway (not this body's cost). */
  constructor(body: Buffer | readonly Buffer[], shared = 0) {
    const chunks = Buffer.isBuffer(body) ? [body] : body
    const size = chunks.reduce((n, chunk) => n + chunk.length, 0)
    this.size = size
    if (chunks.length > 1 && size < JOIN_BELOW_BYTES) {
      this.chunks = [Buffer.concat(chunks, size)]
      this.ownBytes = size
    } else {
      this.chunks = chunks
      this.ownBytes = size - shared
    }
  }

  /** What keeping this body costs: its own bytes and the compressed forms made so far. */
  get bytes(): number {
    return this.ownBytes + this.compressedBytes
  }

  /** Told when `bytes` grows (a compressed form was made): a cache bounded in bytes re-counts it. */
  watch(listener: () => void): void {
    this.listener = listener
  }

  /** The uncompressed answer as one buffer, when it is one. */
  get single(): Buffer | undefined {
    return this.chunks.length === 1 ? this.chunks[0] : undefined
  }

  /** The uncompressed answer joined in one buffer: a copy of a large one (the routes stream it instead). */
  toBuffer(): Buffer {
    return this.single ?? Buffer.concat(this.chunks, this.size)
  }

  /** The uncompressed answer as a stream of its slices (no copy). */
  stream(): Readable {
    return Readable.from(this.chunks, { objectMode: false })
  }

  encoded(encoding: 'br' | 'gzip'): Promise<Buffer> {
    let pending = this.compressed.get(encoding)
    if (!pending) {
      const single = this.single
      pending =
        single === undefined
          ? compressChunks(this.chunks, encoding, this.size)
          : encoding === 'gzip'
            ? gzipAsync(single, GZIP_OPTIONS)
            : brotliAsync(single, brotliOptions(this.size))
      this.compressed.set(encoding, pending)
      pending.then(
        (bytes) => {
          this.compressedBytes += bytes.length
          this.listener?.()
        },
        // A failed compression is not cached, the next request tries again.
        () => this.compressed.delete(encoding),
      )
    }
    return pending
  }

  /** Whether the compressed form is made already (sending it then costs nothing). */
  has(encoding: 'br' | 'gzip'): boolean {
    return this.compressed.has(encoding)
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

/**
 * A small LRU bounded by the total of its values' `bytes`. A value that can grow (`watch`) is re-counted
 * when it does, and the oldest entries leave until the total fits again.
 */
export class ByteLru<V extends { bytes: number; watch?: (listener: () => void) => void }> {
  private readonly entries = new Map<string, { value: V; weight: number }>()
  private total = 0
  constructor(readonly maxBytes: number) {}

  /** The bytes its entries hold now. */
  get bytes(): number {
    return this.total
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, entry)
    }
    return entry?.value
  }

  set(key: string, value: V): void {
    this.delete(key)
    if (value.bytes > this.maxBytes) return
    const entry = { value, weight: value.bytes }
    this.entries.set(key, entry)
    this.total += entry.weight
    value.watch?.(() => {
      if (this.entries.get(key) !== entry) return
      this.total += value.bytes - entry.weight
      entry.weight = value.bytes
      if (entry.weight > this.maxBytes) this.delete(key)
      this.evict()
    })
    this.evict()
  }

  private delete(key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.entries.delete(key)
    this.total -= entry.weight
  }

  private evict(): void {
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break
      this.entries.delete(oldest)
      this.total -= entry.weight
    }
  }
}
