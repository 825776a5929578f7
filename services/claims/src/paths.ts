import { fileURLToPath } from 'node:url'

/** migrations/ at the package root, from src/ (tsx) and from dist/ (built) alike. */
export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url))
