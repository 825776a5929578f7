import {
  Address,
  baseConfigSchema,
  ConfigError,
  readConfig,
  rpcUrlList,
  rpcUrlListProblem,
} from '@genesis/common'
import { type Static, Type } from '@sinclair/typebox'

export const configSchema = Type.Composite([
  baseConfigSchema({ service: 'land', port: 3003 }),
  Type.Object({
    /**
     * When to load the Genesis City demo set into an empty database at start: `embedded` (default: only on
     * the embedded PostgreSQL, so `pnpm start` shows a city), `always` (any empty database), `never`.
     */
    LAND_AUTO_SEED: Type.Union([Type.Literal('embedded'), Type.Literal('always'), Type.Literal('never')], {
      default: 'embedded',
    }),
    /**
     * After each build, serialise every parcel and the whole-grid /map (and compress it) in the background,
     * so that no client pays for it; off saves memory and some CPU after each change.
     */
    LAND_PREWARM: Type.Boolean({ default: true }),
    /**
     * PNG renders at once per process (README "Capacity"): each holds an image buffer of ~4 MiB while it
     * draws and encodes (kept for the next render); the next wait their turn (the kit's ADMISSION_QUEUE, ADMISSION_WAIT_MS), the rest are
     * refused 503 with Retry-After. 0 turns this off. Large answers take turns of HEAVY_CONCURRENCY.
     */
    LAND_RENDERS_IN_FLIGHT: Type.Integer({ minimum: 0, maximum: 64, default: 2 }),
    /** Quiet time after a `land_changed` notification before the index is rebuilt (writes come in bursts). */
    LAND_REFRESH_DEBOUNCE_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 100 }),
    /**
     * The chain to follow: one JSON-RPC URL or a comma-separated list of providers of that chain (the
     * healthiest is used); unset: the data comes from the seed and imports only.
     */
    LAND_RPC_URL: Type.Optional(rpcUrlList()),
    /**
     * The LAND registry: followed with LAND_RPC_URL, and the contract `/v2/contracts/:address/tokens/:id`
     * describes (default there: mainnet's).
     */
    LAND_REGISTRY_ADDRESS: Type.Optional(Address),
    /** The estate registry likewise. */
    ESTATE_REGISTRY_ADDRESS: Type.Optional(Address),
    MARKETPLACE_ADDRESS: Type.Optional(Address),
    /** The first block to index (the contracts' deployment). */
    LAND_START_BLOCK: Type.Integer({ minimum: 0, default: 0 }),
    /** Blocks this deep are taken as final: a reorganisation may undo only the newer ones. */
    LAND_CONFIRMATIONS: Type.Integer({ minimum: 0, maximum: 10_000, default: 12 }),
    /** Pause between looks at the chain head once caught up. */
    LAND_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 500 }),
    /** The widest eth_getLogs block range asked for (halved while a provider refuses). */
    LAND_MAX_BLOCK_RANGE: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 2000 }),
    /**
     * Whether LAND_RPC_URL is a development chain, whose indexed data is emptied and indexed again when the
     * node turns out to be another chain (a development node started afresh). Unset: a development node
     * (anvil, hardhat, ganache, or chain id 31337 / 1337) is one.
     */
    LAND_DEV_CHAIN: Type.Optional(Type.Boolean()),
    /** How long one JSON-RPC call to the chain may take. */
    LAND_RPC_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    /**
     * The service's public base URL, for absolute links in token metadata (the images). Unset: on the
     * embedded database the request's origin; with DATABASE_URL outside production, where it listens.
     */
    LAND_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  }),
])
export type Config = Static<typeof configSchema>

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config = readConfig(configSchema, env)
  if (config.LAND_RPC_URL) {
    const problem = rpcUrlListProblem('LAND_RPC_URL', config.LAND_RPC_URL)
    if (problem) throw new ConfigError([problem])
    const missing = ['LAND_REGISTRY_ADDRESS', 'ESTATE_REGISTRY_ADDRESS', 'MARKETPLACE_ADDRESS'].filter(
      (name) => !config[name as keyof Config],
    )
    if (missing.length > 0) throw new Error(`LAND_RPC_URL is set: ${missing.join(', ')} must be set too`)
  }
  if (!config.LAND_PUBLIC_URL && config.DATABASE_URL && config.NODE_ENV !== 'production') {
    const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? 'localhost' : config.HOST
    config.LAND_PUBLIC_URL = `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`
  }
  return config
}
