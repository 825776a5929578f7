/** What an entry costs beside its image and its key: the Buffer object and the map's entry. */
export const ENTRY_BYTES = 128

/** An entry's weight against the bound: its image, its key (a long selection makes a long key) and the rest. */
const weightOf = (key: string, value: Buffer) => value.byteLength + key.length + ENTRY_BYTES

interface Entry {
  value: Buffer
  /** Asked for since it was stored or last passed over by an eviction. */
  used: boolean
}

/**
 * Rendered PNGs, bounded by their total size in bytes (keys included), the least recently used out first,
 * as a second-chance (CLOCK) cache: a hit only marks its entry, and an eviction passes over a marked
 * entry once, moving it to the back. Moving every hit to the back instead (a delete and a set) left a hole
 * in the map per request, and the map rebuilt its table every few hits of a hot image.
 * Keys carry the snapshot version, so a new version simply stops hitting the old entries;
 * `retainVersion` drops them at once rather than waiting for them to age out.
 */
export class ImageCache {
  private readonly entries = new Map<string, Entry>()
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
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    entry.used = true
    return entry.value
  }

  set(key: string, value: Buffer): void {
    if (weightOf(key, value) > this.maxBytes) return
    this.delete(key)
    this.entries.set(key, { value, used: false })
    this.totalBytes += weightOf(key, value)
    // Oldest first; a marked entry goes to the back unmarked (a map's iteration reaches it again there),
    // and the entry just stored stays.
    for (const [oldest, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break
      if (oldest === key) continue
      this.entries.delete(oldest)
      if (entry.used) {
        entry.used = false
        this.entries.set(oldest, entry)
      } else {
        this.totalBytes -= weightOf(oldest, entry.value)
      }
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
    this.totalBytes -= weightOf(key, old.value)
  }
}
