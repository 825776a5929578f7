import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runNode } from './fixtures.js'

const probe = fileURLToPath(new URL('./fixtures/tick-shape-probe.ts', import.meta.url))

/** The states of nextTick's literal-definition caches after full collections, as V8 prints them. */
function tickCachesAfterCollections(keep: boolean): string[] {
  const child = runNode(['--import', 'tsx', '--allow-natives-syntax', '--expose-gc', probe], {
    ...process.env,
    KEEP: keep ? '1' : '0',
  })
  expect(child.status, child.stderr).toBe(0)
  return [...child.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map(
    (match) => match[1] as string,
  )
}

describe('keep-tick-shape', () => {
  it('keeps every one of nextTick’s property definitions monomorphic across full collections', () => {
    const states = tickCachesAfterCollections(true)
    expect(states).toHaveLength(4)
    expect(states.every((state) => state === 'MONOMORPHIC')).toBe(true)
  })

  it('is needed: without it, full collections while no tick is alive turn them megamorphic for good', () => {
    expect(tickCachesAfterCollections(false)).toContain('MEGAMORPHIC')
  })
})
