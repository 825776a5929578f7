import { describe, expect, it } from 'vitest'
import { createBatcher } from '../src/db/batcher.js'

/** A statement that answers when told to, recording what each call was given. */
function gate() {
  let open: () => void = () => {}
  let opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return {
    wait: () => opened,
    open: () => {
      open()
      opened = Promise.resolve()
    },
  }
}

describe('createBatcher', () => {
  it('runs a lone item through `one`, and the items that wait for it in one `many`, each given its own result', async () => {
    const calls: string[] = []
    const first = gate()
    const batcher = createBatcher<number, number>({
      maxItems: 10,
      maxInFlight: 1,
      one: async (n) => {
        calls.push(`one ${n}`)
        await first.wait()
        return n * 10
      },
      many: async (ns) => {
        calls.push(`many ${ns.join(',')}`)
        return ns.map((n) => n * 10)
      },
    })
    const lone = batcher.run(1)
    // the next turn of the event loop: the batcher has sent it
    await new Promise((resolve) => setImmediate(resolve))
    const waiting = Promise.all([2, 3, 4].map((n) => batcher.run(n)))
    first.open()
    expect([await lone, ...(await waiting)]).toEqual([10, 20, 30, 40])
    expect(calls).toEqual(['one 1', 'many 2,3,4'])
  })

  it('sends the items of one turn of the event loop together', async () => {
    const calls: number[][] = []
    const batcher = createBatcher<number, number>({
      maxItems: 10,
      maxInFlight: 2,
      one: async (n) => {
        calls.push([n])
        return n
      },
      many: async (ns) => {
        calls.push(ns)
        return ns
      },
    })
    expect(await Promise.all([1, 2, 3].map((n) => batcher.run(n)))).toEqual([1, 2, 3])
    expect(await batcher.run(4)).toBe(4)
    expect(calls).toEqual([[1, 2, 3], [4]])
  })

  it('takes at most maxItems an item, and no more than maxInFlight batches at once', async () => {
    const sizes: number[] = []
    let running = 0
    let most = 0
    const batcher = createBatcher<number, number>({
      maxItems: 3,
      maxInFlight: 2,
      one: async (n) => {
        sizes.push(1)
        running++
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 5))
        running--
        return n
      },
      many: async (ns) => {
        sizes.push(ns.length)
        running++
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 5))
        running--
        return ns
      },
    })
    const items = Array.from({ length: 20 }, (_, i) => i)
    expect(await Promise.all(items.map((n) => batcher.run(n)))).toEqual(items)
    expect(Math.max(...sizes)).toBe(3)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(20)
    expect(most).toBe(2)
  })

  it('keeps an item that may not join out of the batch, for a later one', async () => {
    const batches: string[][] = []
    const first = gate()
    const batcher = createBatcher<string, string>({
      maxItems: 10,
      maxInFlight: 1,
      // items sharing their first letter never share a batch
      joins: (taken, item) => taken.every((other) => other[0] !== item[0]),
      one: async (item) => {
        batches.push([item])
        await first.wait()
        return item
      },
      many: async (items) => {
        batches.push(items)
        return items
      },
    })
    const results = Promise.all(['x0', 'a1', 'b1', 'a2', 'c1', 'a3'].map((item) => batcher.run(item)))
    first.open()
    expect(await results).toEqual(['x0', 'a1', 'b1', 'a2', 'c1', 'a3'])
    expect(batches).toEqual([['x0', 'a1', 'b1', 'c1'], ['a2'], ['a3']])
  })

  it('runs each item of a failed batch alone: a failing item fails alone, the others get their results', async () => {
    const first = gate()
    const batcher = createBatcher<number, number>({
      maxItems: 10,
      maxInFlight: 1,
      one: async (n) => {
        await first.wait()
        if (n === 3) throw new Error(`item ${n} refused`)
        return n
      },
      many: async () => {
        throw new Error('the batch failed')
      },
    })
    const results = Promise.allSettled([1, 2, 3, 4].map((n) => batcher.run(n)))
    first.open()
    expect((await results).map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual([
      1,
      2,
      'Error: item 3 refused',
      4,
    ])
  })

  it('a lone item that fails is refused with its own error', async () => {
    const batcher = createBatcher<number, number>({
      maxItems: 10,
      maxInFlight: 1,
      one: async () => {
        throw new Error('refused')
      },
      many: async (ns) => ns,
    })
    await expect(batcher.run(1)).rejects.toThrow('refused')
    // and the batcher goes on
    await expect(batcher.run(2)).rejects.toThrow('refused')
  })
})
