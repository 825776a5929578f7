import type { Sql } from '@genesis/common'
import { loadSignerKey, type SignerKey } from './chain/signer-key.js'
import { createVoucherSigner, type VoucherSigner } from './chain/voucher.js'
import type { Config } from './config.js'

/** Everything a route needs besides the request: built once per app, from the configuration. */
export interface Context {
  sql: Sql
  config: Config
  /** Signs every claim's voucher. */
  signer: VoucherSigner
  /** Where the signer's key came from, for the start log; absent when the signer was handed in. */
  signerKey?: { source: SignerKey['source']; keyFile?: string }
}

/**
 * The voucher signer comes from CLAIMS_SIGNER_PRIVATE_KEY, else from the key kept under DATA_DIR
 * (generated on the first start); `overrides` replaces any part (tests).
 */
export async function createContext(
  sql: Sql,
  config: Config,
  overrides: Partial<Context> = {},
): Promise<Context> {
  const signing = overrides.signer
    ? { signer: overrides.signer, signerKey: overrides.signerKey }
    : await signerFromConfig(config)
  return { ...overrides, sql, config, ...signing }
}

async function signerFromConfig(config: Config): Promise<Pick<Context, 'signer' | 'signerKey'>> {
  const key = await loadSignerKey({ privateKey: config.CLAIMS_SIGNER_PRIVATE_KEY, dataDir: config.DATA_DIR })
  return {
    signer: createVoucherSigner(key.privateKey),
    signerKey: { source: key.source, ...(key.path ? { keyFile: key.path } : {}) },
  }
}
