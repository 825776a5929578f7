import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

/*
 * Defect: without a PostgreSQL, every test file printed the in-memory PGlite fallback notice again. Now a
 * notice is printed once per test run, by the first of the run's test files (each its own worker process)
 * to give it.
 */

const source = new URL('../src/testing/database.ts', import.meta.url).href
const cwd = fileURLToPath(new URL('..', import.meta.url))

/** A worker of the run `run` giving the notice; answers what it printed on stderr. */
function worker(run: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { noticeOncePerRun } = await import(${JSON.stringify(source)})
       noticeOncePerRun('fallback', 'PostgreSQL does not answer: the in-memory stand-in')`,
    ],
    { cwd, env: { ...process.env, GENESIS_TEST_RUN: run }, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk
  })
  return new Promise((resolve) => child.on('exit', () => resolve(stderr)))
}

const runs = [`test-${randomUUID()}`, `test-${randomUUID()}`]
afterAll(() => {
  for (const name of readdirSync(tmpdir()))
    if (runs.some((run) => name.startsWith(`genesis-test-notice-${run}`))) rmSync(join(tmpdir(), name))
})

describe('a notice every test file gives', () => {
  it('is printed once per test run, and again in the next run', async () => {
    const [run, next] = runs as [string, string]
    const printed = await Promise.all([worker(run), worker(run), worker(run), worker(run)])
    expect(printed.filter((text) => text.includes('the in-memory stand-in'))).toHaveLength(1)
    expect(await worker(next)).toContain('the in-memory stand-in')
  })
})
