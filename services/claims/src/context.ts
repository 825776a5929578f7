import type { Sql } from '@genesis/common'
import { createDispenserChains, type DispenserChain } from './chain/dispenser.js'
import { loadSignerKey, type SignerKey } from './chain/signer-key.js'
import { createVoucherSigner, type VoucherSigner } from './chain/voucher.js'
import type { Config } from './config.js'
import { type AdminToken, adminTokenOf } from './domain/admin-token.js'
import { type CreateBatches, createBatches } from './domain/create-batches.js'

/** Everything a route needs besides the request: built once per app, from the configuration. */
export interface Context {
  sql: Sql
  config: Config
  /** Signs every claim's voucher. */
  signer: VoucherSigner
  /** Where the signer's key came from, for the start log; absent when the signer was handed in. */
  signerKey?: { source: SignerKey['source']; keyFile?: string }
  /** The operator's bearer token (CLAIMS_ADMIN_TOKEN, or the development one); `token` undefined: admin calls are 401. */
  admin: AdminToken
  /** chain_id → its dispenser reads, for each RPC_URL_<chain_id>; a chain absent here is unwatched. */
  chains: Map<string, DispenserChain>
  /** The creates' reads and writes, shared by concurrent creates. */
  batches: CreateBatches
}

/**
 * The voucher signer comes from CLAIMS_SIGNER_PRIVATE_KEY, else from the key kept under DATA_DIR
 * (generated on the first start); the admin token as `adminTokenOf` decides; `overrides` replaces any
 * part (tests).
 */
export async function createContext(
  sql: Sql,
  config: Config,
  overrides: Partial<Context> = {},
): Promise<Context> {
  const signing = overrides.signer
    ? { signer: overrides.signer, signerKey: overrides.signerKey }
    : await signerFromConfig(config)
  const admin = overrides.admin ?? (await adminTokenOf(config))
  const chains =
    overrides.chains ?? createDispenserChains(config.rpcUrls, { confirmations: config.CLAIMS_CONFIRMATIONS })
  const batches = overrides.batches ?? createBatches(sql, { maxItems: config.CLAIMS_CREATE_BATCH_MAX })
  return { ...overrides, sql, config, ...signing, admin, chains, batches }
}

async function signerFromConfig(config: Config): Promise<Pick<Context, 'signer' | 'signerKey'>> {
  const key = await loadSignerKey({ privateKey: config.CLAIMS_SIGNER_PRIVATE_KEY, dataDir: config.DATA_DIR })
  return {
    signer: createVoucherSigner(key.privateKey),
    signerKey: { source: key.source, ...(key.path ? { keyFile: key.path } : {}) },
  }
}
