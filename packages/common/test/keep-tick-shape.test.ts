import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const probe = fileURLToPath(new URL('./fixtures/tick-shape-probe.ts', import.meta.url))

/** The states of nextTick's literal-definition caches after full collections, as V8 prints them. */
function tickCachesAfterCollections(keep: boolean): string[] {
  // V8 prints to the process's stdout from C++: through a pipe, part of it was sometimes lost; a file takes all.
  const dir = mkdtempSync(join(tmpdir(), 'tick-shape-'))
  const printed = join(dir, 'stdout')
  const out = openSync(printed, 'w')
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--allow-natives-syntax', '--expose-gc', probe],
    {
      env: { ...process.env, KEEP: keep ? '1' : '0' },
      stdio: ['ignore', out, 'pipe'],
      encoding: 'utf8',
      timeout: 60_000,
    },
  )
  closeSync(out)
  const text = readFileSync(printed, 'utf8')
  rmSync(dir, { recursive: true })
  expect(child.status, child.stderr).toBe(0)
  return [...text.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1] as string)
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
