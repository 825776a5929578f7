import { Address, baseConfigSchema, loadConfig as loadBaseConfig } from '@genesis/common'
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
    /** Quiet time after a `land_changed` notification before the index is rebuilt (writes come in bursts). */
    LAND_REFRESH_DEBOUNCE_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 100 }),
    /**
     * The service's public base URL, for absolute links in token metadata (the images). Unset: the
     * request's origin, in development only.
     */
    LAND_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
    /** The LAND registry whose tokens `/v2/contracts/:address/tokens/:id` describes (default: mainnet's). */
    LAND_REGISTRY_ADDRESS: Type.Optional(Address),
    /** The estate registry likewise. */
    ESTATE_REGISTRY_ADDRESS: Type.Optional(Address),
    /** `production` turns development defaults off (metadata links from the request's origin). */
    NODE_ENV: Type.Optional(Type.String()),
  }),
])
export type Config = Static<typeof configSchema>

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadBaseConfig(configSchema, env)
