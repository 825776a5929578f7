import { baseConfigSchema, ConfigError, readConfig, rpcUrlListProblem } from '@genesis/common'
import { CHAIN_IDS } from '@genesis/wire/claims'
import { type Static, Type } from '@sinclair/typebox'

export const configSchema = Type.Composite([
  baseConfigSchema({ service: 'claims', port: 3001 }),
  Type.Object({
    CLAIMS_ADMIN_TOKEN: Type.Optional(
      Type.String({
        minLength: 16,
        description:
          'Bearer token of admin calls; unset = a development token in DATA_DIR on the embedded database ' +
          'outside production, admin calls 401 otherwise',
      }),
    ),
    NODE_ENV: Type.Optional(Type.String({ description: '`production` turns development defaults off' })),
    CLAIMS_SIGNER_PRIVATE_KEY: Type.Optional(
      Type.String({
        pattern: '^(0x)?[0-9a-fA-F]{64}$',
        description: 'Voucher signing key; unset = kept in DATA_DIR',
      }),
    ),
    CLAIM_TTL_S: Type.Integer({ minimum: 10, maximum: 30 * 86_400, default: 3600 }),
    RECONCILE_INTERVAL_MS: Type.Integer({ minimum: 100, default: 15_000 }),
    /** A reported hash the node still does not know after this long sends its claim back to claimed. */
    RECONCILE_GRACE_S: Type.Integer({ minimum: 0, default: 600 }),
    CLAIMS_CONFIRMATIONS: Type.Integer({
      minimum: 0,
      maximum: 10_000,
      default: 12,
      description: 'How deep a block must be before a redemption (or a voucher past expiry) in it counts',
    }),
    SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 60_000 }),
    CLAIMS_CREATE_BATCH_MAX: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 24,
      description: 'Concurrent creates written in one statement at most (1: each create alone)',
    }),
  }),
])

export type Config = Static<typeof configSchema> & {
  /** RPC_URL_<chain_id> → its providers (one URL or a comma-separated list), for the reconciler. */
  rpcUrls: Map<string, string>
}

const RPC_PREFIX = 'RPC_URL_'

/**
 * RPC_URL_<chain_id> variables: the chain must be one of the spec's, the value one http(s) URL or a
 * comma-separated list of providers of that chain. A refused value is named, never printed (a provider's
 * URL often holds its API key).
 */
export function parseRpcUrls(env: NodeJS.ProcessEnv): Map<string, string> {
  const urls = new Map<string, string>()
  const problems: string[] = []
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(RPC_PREFIX) || !value) continue
    const chainId = name.slice(RPC_PREFIX.length)
    if (!(CHAIN_IDS as readonly string[]).includes(chainId)) {
      problems.push(`${name}: chain ${JSON.stringify(chainId)} is not one of ${CHAIN_IDS.join(', ')}`)
    } else {
      const problem = rpcUrlListProblem(name, value)
      if (problem) problems.push(problem)
      else urls.set(chainId, value)
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return urls
}

/** Reads and checks the environment once; every problem of both parts is listed in one ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = []
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read()
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error
      problems.push(...error.problems)
      return undefined
    }
  }
  const base = attempt(() => readConfig(configSchema, env))
  const rpcUrls = attempt(() => parseRpcUrls(env))
  if (!base || !rpcUrls) throw new ConfigError(problems)
  return { ...base, rpcUrls }
}
