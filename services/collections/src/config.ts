import { baseConfigSchema, ConfigError, readConfig, rpcUrlList, rpcUrlListProblem } from '@genesis/common'
import { DEFAULT_CHAIN_NETWORK, DEFAULT_REGISTRY } from '@genesis/wire/collections'
import { type Static, Type } from '@sinclair/typebox'

const Hex32 = (description: string, defaultValue: string) =>
  Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', default: defaultValue, description })
const AddressVar = (description: string, defaultValue: string) =>
  Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', default: defaultValue, description })

/**
 * The defaults are the public testnet values matching CHAIN_NETWORK=sepolia (its collections live on
 * Polygon Amoy): set all of them together for another network. See README "Environment".
 */
export const configSchema = Type.Composite([
  baseConfigSchema({ service: 'collections', port: 3002 }),
  Type.Object({
    COMMITTEE_ADDRESSES: Type.String({
      default: '',
      pattern: '^(\\s*0x[0-9a-fA-F]{40}\\s*(,\\s*0x[0-9a-fA-F]{40}\\s*)*)?$',
      description:
        'Comma-separated addresses of the curation committee; empty = a development member whose key is ' +
        'kept in DATA_DIR on the embedded database outside production, no committee otherwise',
    }),
    CHAIN_NETWORK: Type.String({ default: DEFAULT_CHAIN_NETWORK, pattern: '^[a-z0-9-]{1,32}$' }),
    COLLECTION_FACTORY_ADDRESS: AddressVar(
      'Factory that deploys collection contracts with CREATE2',
      '0xddb3781fff645325c8896aa1f067baa381607ecc',
    ),
    COLLECTION_INIT_CODE_HASH: Hex32(
      'keccak256 of the init code the factory deploys',
      '0x7917e9ddbe5e0fd8de84efee3e8089ca7878af7a6aa1a62b4d0b6160821d4de8',
    ),
    THIRD_PARTY_REGISTRY_NAME: Type.String({ default: DEFAULT_REGISTRY.name, minLength: 1 }),
    THIRD_PARTY_REGISTRY_ADDRESS: AddressVar(
      'EIP-712 verifyingContract of slot cheques, and the contract asked whether a cheque was consumed',
      DEFAULT_REGISTRY.address,
    ),
    THIRD_PARTY_REGISTRY_CHAIN_ID: Type.Integer({ minimum: 1, default: DEFAULT_REGISTRY.chainId }),
    /** The chain's JSON-RPC: one URL or a comma-separated list of providers of that chain. */
    RPC_URL: Type.Optional(rpcUrlList()),
    RPC_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000 }),
    LOCK_TTL_S: Type.Integer({ minimum: 1, default: 86_400 }),
  }),
])

export type Config = Static<typeof configSchema>

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config = readConfig(configSchema, env)
  const problem = config.RPC_URL ? rpcUrlListProblem('RPC_URL', config.RPC_URL) : null
  if (problem) throw new ConfigError([problem])
  return config
}

export const parseAddressList = (value: string): string[] =>
  value
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .filter((a) => a.length > 0)
