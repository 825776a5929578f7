import { join } from 'node:path'
import { developmentDefaultsAllowed, keptSecret } from '@genesis/common'
import { Wallet } from 'ethers'

export const DEV_COMMITTEE_KEY_FILE = 'committee.key'

export interface Committee {
  /** For COMMITTEE_ADDRESSES: comma-separated, possibly empty. */
  addresses: string
  /** `env`: COMMITTEE_ADDRESSES; `generated`/`file`: the development member; `none`: no committee. */
  source: 'env' | 'generated' | 'file' | 'none'
  path?: string
}

/**
 * COMMITTEE_ADDRESSES when set. Otherwise, on the embedded database outside production (`pnpm start`), one
 * development member whose private key is generated once and kept in DATA_DIR, so that the committee's
 * routes can be tried (`pnpm demo` signs with it); anywhere else, no committee.
 */
export async function committeeOf(config: {
  COMMITTEE_ADDRESSES: string
  DATABASE_URL?: string | undefined
  NODE_ENV?: string | undefined
  DATA_DIR: string
}): Promise<Committee> {
  if (config.COMMITTEE_ADDRESSES.trim()) return { addresses: config.COMMITTEE_ADDRESSES, source: 'env' }
  if (!developmentDefaultsAllowed(config)) return { addresses: '', source: 'none' }
  const kept = await keptSecret(
    join(config.DATA_DIR, DEV_COMMITTEE_KEY_FILE),
    () => Wallet.createRandom().privateKey,
  )
  const member = new Wallet(kept.value).address.toLowerCase()
  return { addresses: member, source: kept.source, path: kept.path }
}
