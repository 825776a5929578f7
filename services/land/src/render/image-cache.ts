/** What an entry costs beside its image and its key: the Buffer object and the map's entry. */
export const ENTRY_BYTES = 128

/** An entry's weight against the bound: its image, its key (a long selection makes a long key) and the rest. */
const weightOf = (key: string, value: Buffer) => value.byteLength + key.length + ENTRY_BYTES

/**
 * Rendered PNGs, least recently used first out, bounded by their total size in bytes (keys included).
 * Keys carry the snapshot version, so a new version simply stops hitting the old entries;
 * `retainVersion` drops them at once rather than waiting for them to age out.
 */
export class ImageCache {
  private readonly entries = new Map<string, Buffer>()
  private totalBytes = 0
  private currentVersion: string | undefined

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.totalBytes
  }

  /** The data version the entries belong to. */
  get version(): string | undefined {
    return this.currentVersion
  }

  get size(): number {
    return this.entries.size
  }

  get(key: string): Buffer | undefined {
    const value = this.entries.get(key)
    if (value === undefined) return undefined
    // Re-inserting moves the entry to the most recently used end of the Map's order.
    this.entries.delete(key)
    this.entries.set(key, value)
    return value
  }

  set(key: string, value: Buffer): void {
    if (weightOf(key, value) > this.maxBytes) return
    this.delete(key)
    this.entries.set(key, value)
    this.totalBytes += weightOf(key, value)
    for (const [oldest, buffer] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.totalBytes -= weightOf(oldest, buffer)
    }
  }

  /** Forgets every entry when the data version changes (their keys can never be asked for again). */
  retainVersion(version: string): void {
    if (this.currentVersion === version) return
    this.currentVersion = version
    this.entries.clear()
    this.totalBytes = 0
  }

  private delete(key: string): void {
    const old = this.entries.get(key)
    if (old === undefined) return
    this.entries.delete(key)
    this.totalBytes -= weightOf(key, old)
  }
}
