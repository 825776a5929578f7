import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'

/*
 * postgres.js is patched (patches/postgres@3.4.9.patch, applied by pnpm install): its connection queues
 * never dropped the slots that shift() had spent while they were not empty, and remove() scanned them
 * all, a cost on every query that grew with uptime under sustained load (PERFORMANCE.md).
 */
const root = dirname(createRequire(import.meta.url).resolve('postgres'))
const queueFile = join(root, '..', '..', 'src', 'queue.js')

interface Queue<T> {
  readonly length: number
  push(x: T): T
  shift(): T | undefined
  remove(x: T): T | null
}

it('runs the patched queue of postgres.js (pnpm patchedDependencies)', () => {
  expect(readFileSync(queueFile, 'utf8')).toContain('genesis patch')
})

it('keeps the queue first in, first out and remove() exact after many cycles', async () => {
  const { default: Queue } = (await import(pathToFileURL(queueFile).href)) as {
    default: <T>(initial?: T[]) => Queue<T>
  }
  const queue = Queue<{ n: number }>()
  const live = [{ n: 0 }, { n: 1 }, { n: 2 }]
  for (const item of live) queue.push(item)
  // a connection taken from the busy queue and put back at its end, as the pool does under load (a
  // multiple of three turns, so the order is back to the start)
  for (let i = 0; i < 99_999; i++) {
    const item = queue.shift()!
    expect(queue.remove(item)).toBeNull()
    queue.push(item)
  }
  expect(queue.length).toBe(3)
  expect(queue.remove(live[1]!)).toBe(live[1])
  expect(queue.remove({ n: 9 })).toBeNull()
  expect([queue.shift(), queue.shift(), queue.length]).toEqual([live[0], live[2], 0])
})
