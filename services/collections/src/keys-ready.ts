import { createSql, type Database, type Logger } from '@genesis/common'
import type { TypedDataDomain } from 'ethers'
import type { Config } from './config.js'
import { registryDomainOf } from './context.js'
import { completeKeys, type KeyFunctions } from './db/keys.js'
import { chequeDigest } from './domain/cheque.js'
import { nameKey } from './domain/name-key.js'

/**
 * The service-computed keys of the migrated database completed (src/db/keys.ts), on connections of their
 * own without the pool's query deadline: building a unique index on a big table is one long statement.
 */
export async function readyKeys(db: Database, config: Config, logger: Logger): Promise<void> {
  const sql = db.embedded
    ? db.sql
    : createSql(db.url, { max: 2, timeouts: { connectS: config.DB_CONNECT_TIMEOUT_S } })
  try {
    await completeKeys(sql, { ...keyFunctions(registryDomainOf(config)), log: logger })
  } finally {
    if (!db.embedded) await sql.end({ timeout: 5 })
  }
}

/** The domain's rules for each key: a name's normal form, a cheque's EIP-712 digest over the registry's domain. */
export const keyFunctions = (registry: TypedDataDomain): KeyFunctions => ({
  nameKey,
  chequeDigest: (thirdPartyId, cheque) => chequeDigest(registry, thirdPartyId, cheque),
})
