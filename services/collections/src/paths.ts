import { fileURLToPath } from 'node:url'

/** migrations/ sits beside src/ and dist/, so this resolves from either. */
export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url))
