import { describe, expect, it } from 'vitest'
import { GRID_SIZE } from '../src/domain/geometry.js'
import { imageETag, matchesIfNoneMatch } from '../src/render/etag.js'
import { ENTRY_BYTES, ImageCache } from '../src/render/image-cache.js'
import { imageKey, MapImageRenderer, normaliseSelection } from '../src/render/image-renderer.js'
import type { MapSnapshot } from '../src/render/types.js'

const bytes = (n: number, fill = 1) => Buffer.alloc(n, fill)

describe('ImageCache', () => {
  it('evicts the least recently used entries once over its byte bound', () => {
    // each entry weighs its image, its one-letter key and ENTRY_BYTES: room for two of these, not three
    const cache = new ImageCache(2 * (41 + ENTRY_BYTES) + 20)
    cache.retainVersion('v1')
    cache.set('a', bytes(40))
    cache.set('b', bytes(40))
    expect(cache.get('a')).toBeDefined() // a is now more recent than b
    cache.set('c', bytes(40))
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')?.length).toBe(40)
    expect(cache.get('c')?.length).toBe(40)
    expect(cache.bytes).toBe(2 * (41 + ENTRY_BYTES))
    expect(cache.size).toBe(2)
  })

  it('passes over an entry asked for since the last eviction once, and never evicts the entry just stored', () => {
    const cache = new ImageCache(2 * (41 + ENTRY_BYTES) + 20)
    const held = (...keys: string[]) => keys.map((key) => cache.get(key) !== undefined)
    cache.set('a', bytes(40))
    cache.set('b', bytes(40))
    cache.get('a')
    cache.get('a')
    cache.set('c', bytes(40)) // a passed over (its mark cleared), b out
    cache.set('d', bytes(40)) // c is older than a now: out
    expect(held('b', 'c')).toEqual([false, false])
    expect(held('a', 'd')).toEqual([true, true]) // both asked for again, a first
    cache.set('e', bytes(40)) // a and d passed over, e skipped, then a out
    expect(held('a', 'd', 'e')).toEqual([false, true, true])
    expect(cache.bytes).toBe(2 * (41 + ENTRY_BYTES))
  })

  it('replaces an entry without counting it twice, and skips entries larger than the bound', () => {
    const cache = new ImageCache(100 + ENTRY_BYTES)
    cache.set('a', bytes(60))
    cache.set('a', bytes(30))
    expect(cache.bytes).toBe(31 + ENTRY_BYTES)
    cache.set('huge', bytes(97))
    expect(cache.get('huge')).toBeUndefined()
    expect(cache.bytes).toBe(31 + ENTRY_BYTES)
  })

  it('counts the keys: a long key weighs what it holds', () => {
    const cache = new ImageCache(1000 + ENTRY_BYTES)
    cache.set('k'.repeat(990), bytes(20))
    expect(cache.get('k'.repeat(990))).toBeUndefined()
    cache.set('k'.repeat(500), bytes(20))
    expect(cache.bytes).toBe(520 + ENTRY_BYTES)
  })

  it('drops everything when the data version changes', () => {
    const cache = new ImageCache(1000)
    cache.retainVersion('v1')
    cache.set('a', bytes(10))
    cache.retainVersion('v1')
    expect(cache.size).toBe(1)
    cache.retainVersion('v2')
    expect(cache.size).toBe(0)
    expect(cache.bytes).toBe(0)
    expect(cache.version).toBe('v2')
  })
})

describe('ETag', () => {
  it('changes with the version and with the parameters, and is a quoted strong tag', () => {
    const tag = imageETag('v1', 'k')
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(imageETag('v1', 'k')).toBe(tag)
    expect(imageETag('v2', 'k')).not.toBe(tag)
    expect(imageETag('v1', 'k2')).not.toBe(tag)
  })

  it('matches If-None-Match lists, weak tags and *', () => {
    const tag = imageETag('v1', 'k')
    expect(matchesIfNoneMatch(undefined, tag)).toBe(false)
    expect(matchesIfNoneMatch(tag, tag)).toBe(true)
    expect(matchesIfNoneMatch(`"other", ${tag}`, tag)).toBe(true)
    expect(matchesIfNoneMatch(`W/${tag}`, tag)).toBe(true)
    expect(matchesIfNoneMatch('*', tag)).toBe(true)
    expect(matchesIfNoneMatch('"other"', tag)).toBe(false)
  })
})

describe('image keys', () => {
  it('treat a selection as a set', () => {
    const base = { width: 500, height: 500, size: 10, center: { x: 0, y: 0 }, publications: false }
    const a = imageKey({
      ...base,
      selected: normaliseSelection([
        { x: 2, y: 1 },
        { x: -1, y: 5 },
        { x: 2, y: 1 },
      ]),
    })
    const b = imageKey({
      ...base,
      selected: normaliseSelection([
        { x: -1, y: 5 },
        { x: 2, y: 1 },
      ]),
    })
    expect(a).toBe(b)
    expect(imageKey({ ...base, publications: true, selected: [] })).not.toBe(
      imageKey({ ...base, selected: [] }),
    )
    expect(imageKey({ ...base, selected: [] }, 'estate:1')).toContain('estate:1')
  })
})

describe('MapImageRenderer', () => {
  const snapshot = (version: string): MapSnapshot => ({
    version,
    kind: new Uint8Array(GRID_SIZE * GRID_SIZE),
    group: new Int32Array(GRID_SIZE * GRID_SIZE),
    onSale: new Uint8Array(GRID_SIZE * GRID_SIZE),
  })
  const request = {
    width: 64,
    height: 64,
    size: 8,
    center: { x: 0, y: 0 },
    publications: false,
    selected: [],
  }

  it('renders a key once, even when asked concurrently, and remembers the URL that asked', async () => {
    const renderer = new MapImageRenderer()
    const v1 = snapshot('v1')
    const key = imageKey(request)
    const [a, b] = await Promise.all([renderer.png(v1, request, key), renderer.png(v1, request, key)])
    expect(a).toBe(b) // the same Buffer: one render shared
    expect(await renderer.png(v1, request, key)).toBe(a)
    expect(renderer.answered('/map.png?size=8', 'v1')).toBeUndefined()
    renderer.remember('/map.png?size=8', 'v1', key, '"tag"')
    expect(renderer.answered('/map.png?size=8', 'v1')).toEqual({ etag: '"tag"', png: a })
    expect(renderer.answered('/map.png?size=8', 'v2')).toBeUndefined()
  })

  it('forgets a remembered URL once its image left the cache', async () => {
    const renderer = new MapImageRenderer(1) // smaller than any PNG: nothing is kept
    const key = imageKey(request)
    await renderer.png(snapshot('v1'), request, key)
    renderer.remember('/map.png', 'v1', key, '"tag"')
    expect(renderer.answered('/map.png', 'v1')).toBeUndefined()
    expect(renderer.cachedBytes).toBe(0)
  })
})
