import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package root, whether this file runs from src/ (tsx, vitest) or dist/ (node): both sit one level below it. */
export const packageRoot = fileURLToPath(new URL('..', import.meta.url))
export const migrationsDir = join(packageRoot, 'migrations')
