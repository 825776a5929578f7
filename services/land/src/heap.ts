import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** More full collections than this gain nothing (three compact a heap nine tenths empty). */
const MAX_COLLECTIONS = 5
/** After the first, a collection that gives back less than this ends the compaction. */
const LEAST_GAIN_BYTES = 2 ** 20
/** Old-generation pages with less room free than this are compact enough. */
const LEAST_FREE_BYTES = 4 * 2 ** 20

export interface Compaction {
  collections: number
  /** The longest the event loop waited on one of them. */
  longestMs: number
  /** The old generation's pages before and after (what a young-generation collection walks). */
  oldSpaceBeforeBytes: number
  oldSpaceAfterBytes: number
}

/** The old generation's pages and what is alive on them (the whole heap's total moves with the young generation's size). */
function oldSpace(): { pages: number; used: number } {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')
  return { pages: space?.space_size ?? 0, used: space?.space_used_size ?? 0 }
}

/**
 * Full, compacting collections of V8's heap until the old generation's pages are nearly full or one
 * gives back less than a MiB of them, the event loop free between them.
 *
 * Building the index leaves the old generation sparse, and V8 compacts such pages by itself only once
 * the process idles, which a service loaded from the moment it is ready may not do while the load lasts.
 * Every young-generation collection walks the old generation's page list, so those pages cost every
 * scavenge, thousands a minute under load (BENCHMARKS.md, "where the garbage collector's share goes").
 * The first forced collection frees the dead objects but keeps their pages (and promotes the young
 * generation's survivors); each after it moves the live objects of some sparse pages together and gives
 * the emptied pages back, a bounded amount at a time. Node lets a running process reach V8's `gc` this
 * way: the flag set, then the function taken from a context made after it.
 */
export async function compactHeap(): Promise<Compaction> {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const oldSpaceBeforeBytes = oldSpace().pages
  let pages = oldSpaceBeforeBytes
  let collections = 0
  let longestMs = 0
  for (;;) {
    const started = performance.now()
    gc()
    longestMs = Math.max(longestMs, performance.now() - started)
    collections++
    const after = oldSpace()
    const gained = pages - after.pages
    pages = after.pages
    if (after.pages - after.used < LEAST_FREE_BYTES) break
    if ((collections > 1 && gained < LEAST_GAIN_BYTES) || collections === MAX_COLLECTIONS) break
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { collections, longestMs, oldSpaceBeforeBytes, oldSpaceAfterBytes: pages }
}
