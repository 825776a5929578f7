import { dirname, join, resolve } from 'node:path'
import { findUpSync } from 'find-up-simple'

// Every path of a service's own files in one place: the services' DATA_DIR default, `pnpm start` and the
// demo (which reads what the services generated) all compute them here.

/** The repository root (where pnpm-workspace.yaml is), or `from` itself outside one. */
export function findRepositoryRoot(from = process.cwd()): string {
  const workspace = findUpSync('pnpm-workspace.yaml', { cwd: from })
  return workspace ? dirname(workspace) : resolve(from)
}

/** A service's DATA_DIR when none is set: `.data/<service>` at the repository root. */
export const defaultDataDir = (service: string, root: string = findRepositoryRoot()) =>
  join(root, '.data', service)

/**
 * The DATA_DIR of one of several services started together: its own directory under the DATA_DIR they
 * were given (an embedded database belongs to one process, so they never share one), else its default.
 */
export const serviceDataDir = (service: string, shared: string | undefined, root?: string) =>
  shared ? join(resolve(shared), service) : defaultDataDir(service, root)
