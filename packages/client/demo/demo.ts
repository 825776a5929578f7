/**
 * What every flow of the demo shares: its options, a step runner that checks each answer and prints it, and
 * a client for each actor. One module per service (claims.ts, collections.ts, land.ts) walks that service.
 */
import {
  createIdentity,
  type FetchLike,
  GenesisApiError,
  GenesisClient,
  type MessageSigner,
  type RegistryConfig,
  type ServiceUrls,
} from '../src/index.js'

/** What every demo needs: where the services are, the operator's token, where to print. */
export interface DemoBaseOptions {
  urls: ServiceUrls
  /** The claims operator's token. */
  adminToken: string
  print?: (line: string) => void
  fetch?: FetchLike
}

export interface DemoOptions extends DemoBaseOptions {
  /** A private key of a collections committee member. */
  committeeKey: string
  /** CHAIN_NETWORK of the collections service (the network of its URNs). */
  network: string
  /** THIRD_PARTY_REGISTRY_* of the collections service: the domain cheques are signed for. */
  registry: RegistryConfig
}

/** A step whose answer was not the documented one. */
export class DemoCheckFailed extends Error {
  override readonly name = 'DemoCheckFailed'
}

export const check = (condition: unknown, message: string): void => {
  if (!condition) throw new DemoCheckFailed(message)
}

export const hex = (bytes: number) => {
  const buffer = new Uint8Array(bytes)
  globalThis.crypto.getRandomValues(buffer)
  return Array.from(buffer, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** A CIDv1 (base32) of the shape IPFS gives a file; random, as the demo uploads nothing. */
export const contentHash = () => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  const bytes = new Uint8Array(52)
  globalThis.crypto.getRandomValues(bytes)
  return `bafkrei${Array.from(bytes, (b) => alphabet[b % 32]).join('')}`
}

export const short = (value: string) =>
  value.length > 22 ? `${value.slice(0, 12)}…${value.slice(-6)}` : value

/** The step runner and clients a flow walks its service with. */
export interface Demo<Options extends DemoBaseOptions = DemoOptions> {
  options: Options
  /** The client without an identity (public reads, the claims operator). */
  base: GenesisClient
  section(title: string): void
  step<T>(title: string, run: () => Promise<T>, report: (value: T) => string): Promise<T>
  /** A step whose documented answer is a refusal with this status and code. */
  refused(title: string, run: () => Promise<unknown>, status: number, code: string): Promise<GenesisApiError>
  /** A client signing as this wallet. */
  actor(wallet: MessageSigner): Promise<GenesisClient>
  /** The steps answered so far, and the one running. */
  steps: string[]
  current(): string
}

export function startDemo<Options extends DemoBaseOptions>(options: Options): Demo<Options> {
  const print = options.print ?? (() => {})
  const steps: string[] = []
  let current = ''
  const section = (title: string) => print(`\n${title}`)
  const step = async <T>(title: string, run: () => Promise<T>, report: (value: T) => string): Promise<T> => {
    current = title
    const value = await run()
    steps.push(title)
    print(`  ✓ ${title}: ${report(value)}`)
    return value
  }
  /** A step whose documented answer is a refusal with this status and code. */
  const refused = async (title: string, run: () => Promise<unknown>, status: number, code: string) =>
    step<GenesisApiError>(
      title,
      async () => {
        try {
          await run()
        } catch (error) {
          if (error instanceof GenesisApiError && error.status === status && error.code === code) return error
          throw error
        }
        throw new DemoCheckFailed(`expected ${status} ${code}, and the call succeeded`)
      },
      (error) => `refused as documented, ${error.status} ${error.code} ("${error.message}")`,
    )

  const base = new GenesisClient({
    urls: options.urls,
    adminToken: options.adminToken,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  const actor = async (wallet: MessageSigner) => base.as(await createIdentity(wallet))

  return { options, base, section, step, refused, actor, steps, current: () => current }
}
