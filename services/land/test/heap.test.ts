import { describe, expect, it } from 'vitest'
import { compactHeap } from '../src/heap.js'

describe('compactHeap', () => {
  it('gives back the old generation pages left sparse by what was let go', async () => {
    // Objects that outlive young-generation collections (so they sit in the old generation), nine in ten
    // then let go: every page a tenth full, as the index build leaves many.
    let kept: Array<{ id: number; label: string }> = []
    for (let i = 0; i < 1_000_000; i++) kept.push({ id: i, label: `parcel ${i}` })
    await compactHeap()
    kept = kept.filter((_, i) => i % 10 === 0)
    const compaction = await compactHeap()
    expect(kept).toHaveLength(100_000)
    expect(compaction.collections).toBeGreaterThan(1)
    expect(compaction.longestMs).toBeGreaterThan(0)
    // Freeing alone would keep the pages the survivors sit on: ~40 MB of them.
    expect(compaction.oldSpaceAfterBytes).toBeLessThan(compaction.oldSpaceBeforeBytes - 30 * 2 ** 20)
  })
})
