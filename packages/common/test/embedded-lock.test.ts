import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  defaultDataDir,
  embeddedLockFile,
  findRepositoryRoot,
  lockEmbeddedDataDir,
  serviceDataDir,
  startEmbeddedPostgres,
} from '../src/index.js'

/*
 * Defect: `pnpm start` passes an exported DATA_DIR to all three services, and each opened the same
 * DATA_DIR/pglite: three processes on one single-process database. Now each service gets its own
 * directory under it, and an embedded database already open elsewhere is refused at start, never shared.
 */

const scratch = mkdtempSync(join(tmpdir(), 'genesis-embedded-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/**
 * A separate Node process holding the embedded database's lock on `dir` until killed: the lock
 * startEmbeddedPostgres takes before PGlite opens the files (opening them too would only add a minute of
 * PGlite start-up on a busy machine).
 */
async function holdInAnotherProcess(dir: string) {
  const source = new URL('../src/db/embedded.ts', import.meta.url).href
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { mkdirSync } = await import('node:fs')
       const { lockEmbeddedDataDir } = await import(${JSON.stringify(source)})
       mkdirSync(${JSON.stringify(dir)}, { recursive: true })
       lockEmbeddedDataDir(${JSON.stringify(dir)})
       console.log('open')
       setInterval(() => {}, 1000)`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: new URL('..', import.meta.url).pathname },
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('open') && resolve())
    child.on('exit', (code) => reject(new Error(`the holder exited with ${code}`)))
  })
  return child
}

describe('an embedded database', () => {
  it('is refused while another process has it open, and taken over once that process is gone', async () => {
    const dir = join(scratch, 'shared', 'pglite')
    const holder = await holdInAnotherProcess(dir)
    try {
      expect(readFileSync(embeddedLockFile(dir), 'utf8').trim()).toBe(String(holder.pid))
      await expect(startEmbeddedPostgres(dir)).rejects.toThrow(
        new RegExp(`already open by process ${holder.pid}.*its own DATA_DIR`),
      )
    } finally {
      // Killed without a chance to clean up: the lock it leaves is stale.
      holder.kill('SIGKILL')
      await new Promise((resolve) => holder.once('exit', resolve))
    }
    expect(existsSync(embeddedLockFile(dir))).toBe(true)
    const unlock = lockEmbeddedDataDir(dir)
    expect(readFileSync(embeddedLockFile(dir), 'utf8').trim()).toBe(String(process.pid))
    unlock()
    expect(existsSync(embeddedLockFile(dir))).toBe(false)
  }, 120_000)

  it('is refused to a second start in the same process, and free again once stopped', async () => {
    const dir = join(scratch, 'twice', 'pglite')
    const first = await startEmbeddedPostgres(dir)
    expect(readFileSync(embeddedLockFile(dir), 'utf8').trim()).toBe(String(process.pid))
    await expect(startEmbeddedPostgres(dir)).rejects.toThrow(/already open by process \d+ \(this one\)/)
    await first.stop()
    expect(existsSync(embeddedLockFile(dir))).toBe(false)
  }, 120_000)

  it('takes over a lock naming a process that no longer exists', async () => {
    const dir = join(scratch, 'stale', 'pglite')
    mkdirSync(dir, { recursive: true })
    // A pid beyond any kernel's pid_max.
    writeFileSync(embeddedLockFile(dir), '99999999\n')
    const unlock = lockEmbeddedDataDir(dir)
    expect(readFileSync(embeddedLockFile(dir), 'utf8').trim()).toBe(String(process.pid))
    unlock()
  }, 120_000)
})

describe('the data directories of services started together', () => {
  it('give each service its own directory under a shared DATA_DIR, or its default', () => {
    const root = findRepositoryRoot()
    expect(existsSync(join(root, 'pnpm-workspace.yaml'))).toBe(true)
    const shared = join(scratch, 'data')
    const dirs = ['claims', 'collections', 'land'].map((service) => serviceDataDir(service, shared))
    expect(dirs).toEqual([join(shared, 'claims'), join(shared, 'collections'), join(shared, 'land')])
    expect(new Set(dirs).size).toBe(3)
    expect(serviceDataDir('claims', undefined)).toBe(join(root, '.data', 'claims'))
    expect(serviceDataDir('land', '')).toBe(defaultDataDir('land'))
  })
})
