import { type Static, type TObject, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { RPC_URL_LIST_PATTERN } from './chain/rpc-urls.js'
import { defaultDataDir } from './data-dir.js'

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
)

/**
 * An RPC setting: one http(s) provider URL or a comma-separated list of providers of the same chain
 * (chain/providers.ts uses the healthiest). `splitRpcUrls` makes the list.
 */
export const rpcUrlList = (description?: string) =>
  Type.String({ pattern: RPC_URL_LIST_PATTERN, ...(description ? { description } : {}) })

/** The variables every service honours. */
export function baseConfigSchema(service: { service: string; port: number }) {
  return Type.Object({
    PORT: Type.Integer({ minimum: 0, maximum: 65535, default: service.port }),
    /** `/metrics` on a port of its own (the scraper's), not on PORT; 0: on PORT, as in development. */
    METRICS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 0 }),
    HOST: Type.String({ default: '0.0.0.0' }),
    DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
    DATA_DIR: Type.String({ default: defaultDataDir(service.service) }),
    LOG_LEVEL: Type.Union(LogLevel.anyOf, { default: 'info' }),
    /** `json` lines, or `pretty` (readable, for a terminal); unset: pretty when stdout is a terminal. */
    LOG_FORMAT: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('pretty')])),
    CORS_ORIGINS: Type.String({ default: '*' }),
    AUTH_MAX_AGE_S: Type.Integer({ minimum: 1, default: 300 }),
    /** Contract-wallet (EIP-1654) checks: one http(s) provider URL or a comma-separated list of them. */
    AUTH_RPC_URL: Type.Optional(rpcUrlList()),
    /** Admission control: signature verifications and heavy routes' answers in progress at once, 0 = off. */
    AUTH_VERIFY_CONCURRENCY: Type.Integer({ minimum: 0, maximum: 1000, default: 4 }),
    HEAVY_CONCURRENCY: Type.Integer({ minimum: 0, maximum: 1000, default: 4 }),
    /** How many may wait for their turn (of each kind), and for how long, before a 503 with Retry-After. */
    ADMISSION_QUEUE: Type.Integer({ minimum: 1, maximum: 100_000, default: 256 }),
    ADMISSION_WAIT_MS: Type.Integer({ minimum: 1, maximum: 60_000, default: 2000 }),
    BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576 }),
    /** How deep a JSON body may nest objects and arrays (refused 400 before parsing past it). */
    BODY_MAX_DEPTH: Type.Integer({ minimum: 1, maximum: 1000, default: 32 }),
    RATE_LIMIT_MAX: Type.Integer({ minimum: 0, default: 0 }),
    /**
     * How many proxies stand in front of the service (the gateway, an Ingress controller): the client IP
     * (rate limit, logs) is the address that many hops back in X-Forwarded-For. Each proxy appends the
     * address it saw, so only the last `n` entries are anybody's but the client's: trusting them all
     * (`true`) would let a client choose its own address. 0: the socket's address.
     */
    TRUST_PROXY: Type.String({
      pattern: '^[0-9]$',
      default: '0',
      description:
        'the number of proxies in front (0 to 9; `true` is refused: it would trust what a client writes)',
    }),
    SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000 }),
    /** A request's headers must arrive within this long of its connection or previous request. */
    HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    /** A whole request, body included, must arrive within this long (408 and the connection closed). */
    REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 30_000 }),
    /** A kept-alive connection with no request is closed after this long. */
    KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 65_000 }),
    /** Open connections per replica at most; past it a new connection is closed at once. */
    MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 8192 }),
    /** `production` turns the development defaults off (generated secrets and keys under DATA_DIR). */
    NODE_ENV: Type.Optional(Type.String({ description: '`production` turns development defaults off' })),
    /** While PostgreSQL is unreachable, requests answer 503 after at most these waits. */
    DB_CONNECT_TIMEOUT_S: Type.Integer({ minimum: 1, maximum: 600, default: 5 }),
    DB_QUERY_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 5000 }),
  })
}
export type BaseConfig = Static<ReturnType<typeof baseConfigSchema>>

/** The database waits of the base configuration, for openDatabase. */
export const databaseTimeoutsFromConfig = (
  config: Pick<BaseConfig, 'DB_CONNECT_TIMEOUT_S' | 'DB_QUERY_TIMEOUT_MS'>,
) => ({
  connectS: config.DB_CONNECT_TIMEOUT_S,
  queryMs: config.DB_QUERY_TIMEOUT_MS,
})

/**
 * Reads the variables the schema names from `env`, converts and defaults them, and throws one
 * ConfigError listing every problem, so an operator fixes them all in one go.
 */
export function readConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(schema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const value = Value.Default(schema, Value.Convert(schema, raw))
  if (Value.Check(schema, value)) return value
  const problems = [...Value.Errors(schema, value)].map((e) => {
    const name = e.path.slice(1)
    return `${name || '(root)'}: ${e.message}${e.value === undefined ? '' : ` (${shownValue(name, e.value)})`}`
  })
  throw new ConfigError(problems)
}

/**
 * Settings whose value is never printed, since a refusal goes to stderr and so to the container's logs:
 * keys, tokens and passwords, and URLs (a database URL's password, a provider's API key in its path).
 */
const SECRET_SETTING = /(KEY|SECRET|TOKEN|PASSWORD|URL)$/

/** What a refusal says of the value: the value itself for a plain setting, only its shape for a secret. */
function shownValue(name: string, value: unknown): string {
  if (!SECRET_SETTING.test(name) || typeof value !== 'string') return `got ${JSON.stringify(value)}`
  if (value.trim() !== value) {
    return 'the value, not shown, has blanks or a line break around it (as a file ending in a line break gives)'
  }
  const scheme = /^([a-z][a-z0-9+.-]{0,15}):/i.exec(value)?.[1]
  if (scheme && name.endsWith('URL')) return `the value, not shown, is a ${scheme}: URL`
  return `the value, not shown, has ${value.length} characters`
}

/** For a process entry (`server.ts`, `migrate.ts`): a bad environment prints every problem and exits 1. */
export function orExit<T>(service: string, load: () => T): T {
  try {
    return load()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`${service}: ${error.message}`)
    process.exit(1)
  }
}
