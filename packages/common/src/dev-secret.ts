import { randomUUID } from 'node:crypto'
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'

/**
 * Development conveniences (a generated admin token, a generated committee key) are only for a machine
 * running on the embedded database outside production: a deployment (NODE_ENV=production, or a real
 * DATABASE_URL) never gets a credential it was not given.
 */
export const developmentDefaultsAllowed = (env: { DATABASE_URL?: string; NODE_ENV?: string }): boolean =>
  !env.DATABASE_URL && env.NODE_ENV !== 'production'

export interface KeptSecret {
  value: string
  path: string
  /** Created by this call, or kept from an earlier start. */
  source: 'generated' | 'file'
}

/**
 * The secret kept in `path`, created with `create()` on first use: mode 0600. It is written whole to a file
 * of this process's own and then linked into place, which fails if the name exists: two processes starting
 * together agree on one value, and neither ever reads the other's half-written file.
 */
export async function keptSecret(path: string, create: () => string): Promise<KeptSecret> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const generated = create()
  const draft = `${path}.${process.pid}.${randomUUID()}.tmp`
  await writeFile(draft, `${generated}\n`, { mode: 0o600, flag: 'wx' })
  try {
    await link(draft, path)
    return { value: generated, path, source: 'generated' }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    await unlink(draft).catch(() => {})
  }
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600)
  const value = (await readFile(path, 'utf8')).trim()
  if (!value) throw new Error(`${path} is empty: delete it to have a new one generated`)
  return { value, path, source: 'file' }
}
