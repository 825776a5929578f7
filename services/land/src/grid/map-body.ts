import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from 'node:zlib'

const gzipAsync = promisify(gzip)
const brotliAsync = promisify(brotliCompress)

export type Encoding = 'br' | 'gzip' | 'identity'

/**
 * Bodies below this size are joined into one buffer, which they then cost in full: sent in one write and
 * compressed in one call. Larger ones (the whole grid) stay slices of the buffers the index holds anyway.
 */
const JOIN_BELOW_BYTES = 1024 * 1024

/** What keeping one slice costs on the JavaScript heap (a Buffer object and its place in the list). */
export const SLICE_BYTES = 128

const GZIP_OPTIONS = { level: 6 }
/**
 * Brotli's default 4 MiB window: a smaller one needs less memory in the compressing thread but makes the
 * whole-grid answers, which every client downloads and every request writes, a few percent larger.
 */
const BROTLI_WINDOW_BITS = 22
const brotliOptions = (size: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 5,
    [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
  },
})

/**
 * Compresses a body given as slices without joining them (a joined copy of a large one is what we avoid).
 * Only large bodies are slices (smaller ones are joined when made), so the turn of the zlib thread pool
 * each slice takes is little beside the compression of its kilobytes.
 */
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
 * A body's slices as a stream that hands them all to the response at once when piped. A pipe would hand
 * them over a socket buffer (16 KiB) at a time, each turn a write of its own: a few hundred system calls
 * for a whole-grid answer where one writev does. The slices are held in memory anyway, so taking them all
 * at once copies nothing and holds nothing more; the socket writes them as the client reads.
 */
class Slices extends Readable {
  constructor(private readonly slices: readonly Buffer[]) {
    super()
  }

  /** Read rather than piped (a HEAD request's answer is drained so): the slices, in order. */
  override _read(): void {
    for (const slice of this.slices) this.push(slice)
    this.push(null)
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    for (const slice of this.slices) destination.write(slice)
    if (options?.end !== false) destination.end()
    // ended, for whoever waits on this stream's end (Fastify does)
    this.push(null)
    this.resume()
    return destination
  }
}

/**
 * One serialised answer kept in memory with its compressed forms, each made once (on the zlib thread
 * pool, off the event loop) the first time a client asks for it. A large answer is a list of slices of
 * buffers the index holds anyway (the rows of every parcel's JSON), so keeping it costs only its own
 * few bytes (head, tail), its slices' objects and its compressed forms.
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
      this.ownBytes = size - shared + (chunks.length > 1 ? chunks.length * SLICE_BYTES : 0)
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
    return new Slices(this.chunks)
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
 * A small LRU bounded by the total of its values' `bytes` and its keys' lengths. A value that can grow (`watch`) is re-counted
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
    if (value.bytes + key.length > this.maxBytes) return
    const entry = { value, weight: value.bytes + key.length }
    this.entries.set(key, entry)
    this.total += entry.weight
    value.watch?.(() => {
      if (this.entries.get(key) !== entry) return
      this.total += value.bytes + key.length - entry.weight
      entry.weight = value.bytes + key.length
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
