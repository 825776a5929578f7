import { type TypedDataDomain, toBeHex } from 'ethers'

export interface RegistryDomainConfig {
  name: string
  address: string
  chainId: number
}

/** The EIP-712 type the Third Party Registry checks when the committee consumes the slots. */
export const CONSUME_SLOTS_TYPES = {
  ConsumeSlots: [
    { name: 'thirdPartyId', type: 'string' },
    { name: 'qty', type: 'uint256' },
    { name: 'salt', type: 'bytes32' },
  ],
}

/** The registry's domain: it carries the chain id as a 32-byte `salt`, not as `chainId`. */
export const registryDomain = (config: RegistryDomainConfig): TypedDataDomain => ({
  name: config.name,
  version: '1',
  verifyingContract: config.address,
  salt: toBeHex(config.chainId, 32),
})
