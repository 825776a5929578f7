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

/**
 * The network of the service's URNs and the registry it checks cheques against unless its operator set
 * others: Decentraland's testnet, whose third-party registry lives on Polygon Amoy. A client signing a
 * cheque for a service configured otherwise uses that service's values.
 */
export const DEFAULT_CHAIN_NETWORK = 'sepolia'
export const DEFAULT_REGISTRY: RegistryDomainConfig = {
  name: 'Decentraland Third Party Registry',
  address: '0x7d7c0b9d97385bada5fec6861e97d0df414af3c3',
  chainId: 80002,
}
