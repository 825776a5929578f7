import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { developmentDefaultsAllowed, keptSecret } from '@genesis/common'

export const DEV_ADMIN_TOKEN_FILE = 'admin.token'

export interface AdminToken {
  token: string | undefined
  /** `env`: CLAIMS_ADMIN_TOKEN; `generated`/`file`: the development token; `off`: admin calls are 401. */
  source: 'env' | 'generated' | 'file' | 'off'
  path?: string
}

/**
 * CLAIMS_ADMIN_TOKEN when set. Otherwise, on the embedded database outside production (`pnpm start`), a
 * development token generated once and kept in DATA_DIR, so that a newcomer can grant rewards; anywhere
 * else (NODE_ENV=production or a real DATABASE_URL) admin calls stay off.
 */
export async function adminTokenOf(config: {
  CLAIMS_ADMIN_TOKEN?: string | undefined
  DATABASE_URL?: string | undefined
  NODE_ENV?: string | undefined
  DATA_DIR: string
}): Promise<AdminToken> {
  if (config.CLAIMS_ADMIN_TOKEN) return { token: config.CLAIMS_ADMIN_TOKEN, source: 'env' }
  if (!developmentDefaultsAllowed(config)) return { token: undefined, source: 'off' }
  const kept = await keptSecret(join(config.DATA_DIR, DEV_ADMIN_TOKEN_FILE), () =>
    randomBytes(24).toString('hex'),
  )
  return { token: kept.value, source: kept.source, path: kept.path }
}
