import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Wallet } from 'ethers'

export const SIGNER_KEY_FILE = 'signer.key'

export interface SignerKey {
  privateKey: string
  /** Where it came from: the environment, a file created now, or a file from an earlier start. */
  source: 'env' | 'generated' | 'file'
  path?: string
}

const KEY_PATTERN = /^(0x)?[0-9a-fA-F]{64}$/

/**
 * CLAIMS_SIGNER_PRIVATE_KEY when set; otherwise the key kept in DATA_DIR, generated on the first start
 * (mode 0600, created exclusively so that two processes starting together agree on one key).
 */
export async function loadSignerKey(options: {
  privateKey?: string | undefined
  dataDir: string
}): Promise<SignerKey> {
  if (options.privateKey)
    return { privateKey: normalise(options.privateKey, 'CLAIMS_SIGNER_PRIVATE_KEY'), source: 'env' }
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 })
  const path = join(options.dataDir, SIGNER_KEY_FILE)
  const generated = Wallet.createRandom().privateKey
  try {
    await writeFile(path, `${generated}\n`, { mode: 0o600, flag: 'wx' })
    return { privateKey: generated, source: 'generated', path }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  // kept from an earlier start; tighten its mode if somebody loosened it
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600)
  return { privateKey: normalise((await readFile(path, 'utf8')).trim(), path), source: 'file', path }
}

function normalise(key: string, origin: string): string {
  if (!KEY_PATTERN.test(key))
    throw new Error(`${origin} must be a private key: 64 hex digits, optionally 0x-prefixed`)
  return key.startsWith('0x') ? key : `0x${key}`
}
