import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** More full collections than this gain nothing (three compact a heap nine tenths empty). */
const MAX_COLLECTIONS = 5
/** A collection that gives back less than this ends the compaction. */
const LEAST_GAIN_BYTES = 2 ** 20

export interface Compaction {
  collections: number
  /** The longest the event loop waited on one of them. */
  longestMs: number
  heapBeforeBytes: number
  heapAfterBytes: number
}

/**
 * Full, compacting collections of V8's heap until one gives back less than a MiB, the event loop free
 * between them.
 *
 * Building and serialising the index leaves the old generation about a third empty (85 MB of pages for
 * 57 MB alive), and V8 compacts such pages by itself only once the process idles, which a service loaded
 * from the moment it is ready may not do while the load lasts. Every young-generation collection walks
 * the old generation's page list, so those pages cost every scavenge, thousands a minute under load
 * (BENCHMARKS.md, "where the garbage collector's share goes"). A forced full collection moves the live
 * objects of some sparse pages together and gives the emptied pages back; each moves a bounded amount, so
 * it takes two or three. Node lets a running process reach V8's `gc` this way: the flag set, then the
 * function taken from a context made after it.
 */
export async function compactHeap(): Promise<Compaction> {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const heapBeforeBytes = process.memoryUsage().heapTotal
  let heap = heapBeforeBytes
  let collections = 0
  let longestMs = 0
  for (;;) {
    const started = performance.now()
    gc()
    longestMs = Math.max(longestMs, performance.now() - started)
    collections++
    const after = process.memoryUsage().heapTotal
    const gained = heap - after
    heap = after
    if (gained < LEAST_GAIN_BYTES || collections === MAX_COLLECTIONS) break
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { collections, longestMs, heapBeforeBytes, heapAfterBytes: heap }
}
