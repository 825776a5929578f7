import type { Admission } from '@genesis/common'
import type { Cell } from '../domain/geometry.js'
import { type MapImageRequest, renderMapPng } from './draw.js'
import { ImageCache } from './image-cache.js'
import { ScratchBuffers } from './scratch.js'
import type { MapSnapshot } from './types.js'
import { MAX_PIXELS, MAX_SIDE } from './viewport.js'

/** Rendered PNGs kept (README "Capacity"): a city-wide 2048² image is a few hundred kilobytes. */
export const DEFAULT_IMAGE_CACHE_BYTES = 16 * 1024 * 1024
/** Request URLs remembered for the fast path: at most this many, each at most this long. */
const MAX_REMEMBERED_URLS = 4096
const MAX_REMEMBERED_URL_LENGTH = 512

const fullKeyOf = (version: string, key: string) => `${version}\n${key}`

/** Sorted and without repeats, so that equal selections make equal cache keys. */
export function normaliseSelection(selected: readonly Cell[]): Cell[] {
  const seen = new Set<string>()
  const out: Cell[] = []
  for (const c of selected) {
    const id = `${c.x},${c.y}`
    if (seen.has(id)) continue
    seen.add(id)
    out.push({ x: c.x, y: c.y })
  }
  return out.sort((a, b) => a.x - b.x || a.y - b.y)
}

/**
 * Everything that decides the pixels, in one string. `subject` replaces the selection when something
 * shorter names it (an estate id: its parcels only change with the data version).
 */
export function imageKey(request: MapImageRequest, subject?: string): string {
  const { width, height, size, center, publications, atlasPlacement } = request
  const selection = subject ?? request.selected.map((c) => `${c.x},${c.y}`).join(';')
  const placement = atlasPlacement ? ' atlas' : ''
  return `${width}x${height}@${size} c=${center.x},${center.y} p=${publications ? 1 : 0} s=${selection}${placement}`
}

interface RememberedUrl {
  version: string
  fullKey: string
  etag: string
}

/**
 * Renders PNGs once per data version and parameters: an LRU of finished images, one render per key in
 * flight, and the URLs already answered, so that a repeated URL skips parsing, validation and hashing.
 * With an admission bound, a render that no other request is already making waits for its turn (and a
 * flood of new images is refused with 503 rather than drawn all at once).
 */
export class MapImageRenderer {
  private readonly cache: ImageCache
  private readonly inFlight = new Map<string, Promise<Buffer>>()
  private readonly urls = new Map<string, RememberedUrl>()
  /** One image of the pixel budget per render that may run at once: every image fits in (w + 1) × h bytes. */
  private readonly scratch: ScratchBuffers

  /** `scratchKept`: image buffers kept for reuse, one per render that may run at once. */
  constructor(
    maxCacheBytes = DEFAULT_IMAGE_CACHE_BYTES,
    private readonly admission?: Admission,
    scratchKept = 2,
  ) {
    this.cache = new ImageCache(maxCacheBytes)
    this.scratch = new ScratchBuffers(MAX_PIXELS + MAX_SIDE, scratchKept)
  }

  get cachedBytes(): number {
    return this.cache.bytes
  }

  /** The answer already given to this exact URL under this data version, if its image is still cached. */
  answered(url: string, version: string): { etag: string; png: Buffer } | undefined {
    const remembered = this.urls.get(url)
    if (remembered === undefined || remembered.version !== version) return undefined
    const png = this.cache.get(remembered.fullKey)
    return png === undefined ? undefined : { etag: remembered.etag, png }
  }

  /** Notes that `url` is answered with the image of `key` (its images stay bounded by the cache, not here). */
  remember(url: string, version: string, key: string, etag: string): void {
    // A long selection list stays on the ordinary path rather than pinning kilobytes of URL here.
    if (url.length > MAX_REMEMBERED_URL_LENGTH) return
    if (this.urls.size >= MAX_REMEMBERED_URLS) {
      for (const [oldUrl, old] of this.urls) {
        if (this.urls.size < MAX_REMEMBERED_URLS && old.version === version) break
        this.urls.delete(oldUrl)
      }
    }
    this.urls.set(url, { version, fullKey: fullKeyOf(version, key), etag })
  }

  async png(snapshot: MapSnapshot, request: MapImageRequest, key: string): Promise<Buffer> {
    this.cache.retainVersion(snapshot.version)
    const fullKey = fullKeyOf(snapshot.version, key)
    const cached = this.cache.get(fullKey)
    if (cached) return cached
    const pending = this.inFlight.get(fullKey)
    if (pending) return pending
    const render = () => renderMapPng(snapshot, request, this.scratch)
    const rendering = (this.admission ? this.admission.run(render) : render())
      .then((png) => {
        // Only keep it if the data did not move on while it was being encoded.
        if (this.cache.version === snapshot.version) this.cache.set(fullKey, png)
        return png
      })
      .finally(() => this.inFlight.delete(fullKey))
    this.inFlight.set(fullKey, rendering)
    return rendering
  }
}
