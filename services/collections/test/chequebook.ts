import { randomBytes } from 'node:crypto'
import type { Identity } from '@genesis/common/testing'
import type { Config } from '../src/config.js'
import { type Cheque, CONSUME_SLOTS_TYPES, registryDomain } from '../src/domain/cheque.js'

export const domainOf = (config: Config) =>
  registryDomain({
    name: config.THIRD_PARTY_REGISTRY_NAME,
    address: config.THIRD_PARTY_REGISTRY_ADDRESS,
    chainId: config.THIRD_PARTY_REGISTRY_CHAIN_ID,
  })

/** A cheque really signed by `manager`'s wallet with EIP-712, as the builder UI does. */
export async function signCheque(
  config: Config,
  manager: Identity,
  thirdPartyId: string,
  qty: number,
): Promise<Cheque> {
  const salt = `0x${randomBytes(32).toString('hex')}`
  const signature = await manager.wallet.signTypedData(domainOf(config), CONSUME_SLOTS_TYPES, {
    thirdPartyId,
    qty,
    salt,
  })
  return { qty, salt, signature }
}
