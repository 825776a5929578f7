/*
 * Several providers of one chain behind one JSON-RPC interface. Every look at the head asks each provider
 * (one request: its head, whether it is syncing, and its chain: chain id and genesis hash) and
 * keeps the ones fit to answer: answering, serving the pool's chain, not syncing, and not behind the
 * freshest by more than `lagTolerance` blocks. The head handed out is the lowest of theirs, so any of them
 * has every block up to it, and calls go to them only, freshest first, failing over on errors and
 * timeouts. A lagging or syncing provider's view is never acted on: were the fresh ones to go away, the
 * head a lagging one reports is behind what the pool saw, and the pool waits (ProvidersBehind) instead of
 * handing out a lower head that a follower would take for a reorganisation. With a single provider the
 * head it reports is the chain's (a reorganisation may shorten it).
 */
import { assertOutsideTransaction } from '../db/transaction-scope.js'
import { Backoff, errorReason, type OutageLogger } from './backoff.js'
import { type ChainIdentity, describeChain, sameChain } from './chain-identity.js'
import { JsonRpcEndpoint, type RpcAnswer, type RpcCall, RpcUnreachable, resultOf } from './json-rpc.js'
import { providerLabel } from './rpc-urls.js'

/** No provider answered: every one is down (each one's reason in the message). */
export class ProvidersUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ProvidersUnavailable'
  }
}

/** Providers answer, but none is fit: each lags what the pool saw, syncs, or serves another chain. */
export class ProvidersBehind extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProvidersBehind'
  }
}

/** Blocks a provider may be behind the freshest and still be used (heads seen a moment apart differ). */
export const LAG_TOLERANCE = 2
/** How old the last look at the heads may be when a call is routed (a pool nobody asks for the head). */
const HEAD_MAX_AGE_MS = 5000

export interface ProviderPoolOptions {
  urls: readonly string[]
  /** The setting the URLs come from (`RPC_URL_80002`), for messages and log lines. */
  name: string
  /** How long one request to one provider may take. */
  timeoutMs?: number
  lagTolerance?: number
  headMaxAgeMs?: number
  /** Told of each provider going down, lagging, coming back (only with several providers). */
  logger?: OutageLogger
}

type State = 'unknown' | 'up' | 'down' | 'lagging' | 'syncing' | 'other-chain'

interface Provider {
  index: number
  label: string
  endpoint: JsonRpcEndpoint
  /** The last head it reported, and the chain of that head. */
  head: bigint | null
  headChain: ChainIdentity | null
  /** Its chain, as of the last look; null while it does not answer. */
  identity: ChainIdentity | null
  syncing: boolean
  /** It answered the last time it was asked. */
  answering: boolean
  reason: string
  backoff: Backoff
  state: State
}

/** Where one look at the heads left the pool: the head to act on and who may answer, or why none. */
type Verdict = { at: number } & (
  | { ok: true; head: bigint; routing: Provider[] }
  | { ok: false; error: Error }
)

export interface ProviderStatus {
  label: string
  state: State
  head: bigint | null
}

export class ProviderPool {
  readonly name: string
  private readonly providers: Provider[]
  private readonly lagTolerance: bigint
  private readonly headMaxAgeMs: number
  private readonly logger: OutageLogger | undefined
  /** The chain the pool serves: the first one its providers agreed on, or their new one when it was replaced. */
  private served: ChainIdentity | null = null
  /** The lowest head handed out next (several providers: never lower than the last one). */
  private floor: bigint | null = null
  private verdict: Verdict | null = null
  private looking: Promise<Verdict> | null = null

  constructor(options: ProviderPoolOptions) {
    if (options.urls.length === 0) throw new Error(`${options.name}: no provider`)
    this.name = options.name
    this.lagTolerance = BigInt(options.lagTolerance ?? LAG_TOLERANCE)
    this.headMaxAgeMs = options.headMaxAgeMs ?? HEAD_MAX_AGE_MS
    this.logger = options.urls.length > 1 ? options.logger : undefined
    this.providers = options.urls.map((url, index) => ({
      index,
      label: providerLabel(url, index),
      endpoint: new JsonRpcEndpoint(url, options.timeoutMs),
      head: null,
      headChain: null,
      identity: null,
      syncing: false,
      answering: false,
      reason: 'not asked yet',
      backoff: new Backoff(),
      state: 'unknown',
    }))
  }

  /** How many providers the pool has. */
  get size(): number {
    return this.providers.length
  }

  /** HTTP requests sent to the providers so far (a batch counts once). */
  get requests(): number {
    return this.providers.reduce((sum, p) => sum + p.endpoint.requests, 0)
  }

  /** Each provider's state as of the last look (tests, status lines). */
  status(): ProviderStatus[] {
    return this.providers.map((p) => ({ label: p.label, state: p.state, head: p.head }))
  }

  /**
   * The head to act on: looks at every provider now. Throws ProvidersUnavailable when none answers and
   * ProvidersBehind when none is fit (see the top of this file).
   */
  async head(): Promise<bigint> {
    const verdict = await this.look()
    if (!verdict.ok) throw verdict.error
    return verdict.head
  }

  /** The chain the providers serve (looked at when not known yet). */
  async chain(): Promise<ChainIdentity> {
    if (!this.served) await this.head()
    return this.served!
  }

  /**
   * The calls' answers, in order (the node's errors included), from the freshest fit provider that
   * answers. When every provider of the last look fails, the providers are looked at again (one may have
   * come back, or the others be found behind) and the calls sent once more.
   */
  async send<T = unknown>(calls: readonly RpcCall[]): Promise<RpcAnswer<T>[]> {
    assertOutsideTransaction(`A call to ${this.name}`)
    let verdict = this.verdict
    let looked = false
    if (!verdict?.ok || Date.now() - verdict.at > this.headMaxAgeMs) {
      verdict = await this.look()
      looked = true
    }
    for (;;) {
      if (!verdict.ok) throw verdict.error
      const answers = await this.sendRouted<T>(calls, verdict)
      if (!(answers instanceof Error)) return answers
      // the next call looks at the heads again, rather than trusting a routing that just failed
      this.verdict = null
      if (looked) throw answers
      verdict = await this.look()
      looked = true
    }
  }

  /** The calls sent to the providers `verdict` routes to, in turn; the error when none answered usably. */
  private async sendRouted<T>(
    calls: readonly RpcCall[],
    verdict: Verdict & { ok: true },
  ): Promise<RpcAnswer<T>[] | Error> {
    const failures: string[] = []
    let behind = false
    for (const provider of verdict.routing) {
      if (!provider.answering) continue
      let answers: RpcAnswer<T>[]
      try {
        answers = await provider.endpoint.send<T>(calls)
      } catch (error) {
        if (!(error instanceof RpcUnreachable)) throw error
        // a log range heavy enough to time out says nothing of the provider: LogRange narrows it
        if (calls.some((c) => c.method === 'eth_getLogs') && isTimeout(error)) throw error
        this.wentDown(provider, error)
        failures.push(`${provider.label}: ${errorReason(error)}`)
        continue
      }
      const missing = missingBlock(calls, answers, verdict.head)
      if (missing === null) return answers
      // no block at or below the head it reported (a load balancer's backend behind the others): its
      // answers are not taken, and it is not used until a look finds it caught up
      behind = true
      provider.answering = false
      this.setState(provider, 'lagging')
      failures.push(`${provider.label}: no block ${missing}, below the head ${verdict.head}`)
    }
    const message = `${this.name}: no provider answered (${failures.join('; ')})`
    return behind ? new ProvidersBehind(message) : new ProvidersUnavailable(message)
  }

  /** One call's result; the node's error is thrown as an RpcError. */
  async call<T>(method: string, params: unknown[]): Promise<T> {
    const [answer] = await this.send<T>([{ method, params }])
    return resultOf(answer!)
  }

  /** The calls' results, in order; the first error answered is thrown. */
  async batch<T>(calls: readonly RpcCall[]): Promise<T[]> {
    return (await this.send<T>(calls)).map(resultOf)
  }

  /** One look at every provider at a time: concurrent callers share it. */
  private look(): Promise<Verdict> {
    assertOutsideTransaction(`A look at the providers of ${this.name}`)
    this.looking ??= this.lookNow().finally(() => {
      this.looking = null
    })
    return this.looking
  }

  private async lookNow(): Promise<Verdict> {
    const now = Date.now()
    const due = this.providers.filter((p) => p.backoff.due(now))
    // every provider backing off: ask them all rather than nobody
    const asked = due.length > 0 ? due : this.providers
    const returning = asked.filter((p) => p.state === 'down')
    const others = asked.filter((p) => p.state !== 'down')
    const probes = others.map((p) => this.probe(p))
    // one that was down is asked, but not waited for while another may answer: a silent provider would
    // hold every look for its timeout; its answer counts at the next look
    const back = returning.map((p) => this.probe(p))
    await Promise.all(others.length > 0 ? probes : [...probes, ...back])
    let verdict: Verdict
    try {
      const { head, routing } = this.judge()
      verdict = { at: Date.now(), ok: true, head, routing }
    } catch (error) {
      verdict = { at: Date.now(), ok: false, error: error as Error }
    }
    this.verdict = verdict
    return verdict
  }

  /**
   * Asks one provider, in one request, for its head, whether it syncs, and its chain: a development node
   * started afresh between two looks shows its new genesis at the next one.
   */
  private async probe(p: Provider): Promise<void> {
    try {
      const answers = await p.endpoint.send([
        { method: 'eth_blockNumber', params: [] },
        { method: 'eth_syncing', params: [] },
        { method: 'eth_chainId', params: [] },
        { method: 'eth_getBlockByNumber', params: ['0x0', false] },
      ])
      const head = BigInt(resultOf(answers[0]!) as string)
      // a node without eth_syncing is taken as synced
      const syncing = answers[1]!.error ? false : answers[1]!.result !== false
      const chainId = BigInt(resultOf(answers[2]!) as string).toString()
      const genesis = resultOf(answers[3]!) as { hash?: string } | null
      if (!genesis?.hash) throw new RpcUnreachable('the node has no genesis block')
      p.identity = { chainId, genesisHash: genesis.hash.toLowerCase() }
      p.head = head
      p.headChain = p.identity
      p.syncing = syncing
      p.answering = true
      p.backoff.succeeded()
    } catch (error) {
      this.wentDown(p, error)
    }
  }

  private wentDown(p: Provider, error: unknown): void {
    p.answering = false
    p.identity = null
    p.reason = errorReason(error)
    p.backoff.failed()
    this.setState(p, 'down')
  }

  /** The head to hand out and the providers fit to answer, or why there are none. */
  private judge(): { head: bigint; routing: Provider[] } {
    const answering = this.providers.filter((p) => p.answering && p.identity)
    if (answering.length === 0) {
      throw new ProvidersUnavailable(
        `${this.name}: no provider answered (${this.providers.map((p) => `${p.label}: ${p.reason}`).join('; ')})`,
      )
    }
    let onChain = this.served ? answering.filter((p) => sameChain(p.identity!, this.served!)) : []
    if (onChain.length === 0) this.adoptChain(answering)
    onChain = answering.filter((p) => sameChain(p.identity!, this.served!))
    for (const p of answering) if (!onChain.includes(p)) this.setState(p, 'other-chain')

    const ready = onChain.filter((p) => !p.syncing)
    for (const p of onChain) if (p.syncing) this.setState(p, 'syncing')
    if (ready.length === 0) throw new ProvidersBehind(`${this.name}: every provider that answers is syncing`)

    // what the providers of this chain have shown of it, the ones away included: the chain is at least there
    let known = -1n
    for (const p of this.providers) {
      if (p.head !== null && p.headChain && sameChain(p.headChain, this.served!) && p.head > known)
        known = p.head
    }
    const several = this.providers.length > 1
    const fit = ready.filter(
      (p) =>
        p.head! + this.lagTolerance >= known && (!several || this.floor === null || p.head! >= this.floor),
    )
    for (const p of ready) this.setState(p, fit.includes(p) ? 'up' : 'lagging')
    if (fit.length === 0) {
      const best = ready.reduce((a, b) => (a.head! >= b.head! ? a : b))
      throw new ProvidersBehind(
        `${this.name}: the providers that answer are behind the chain seen (${best.label} at block ` +
          `${best.head}, block ${known > (this.floor ?? -1n) ? known : this.floor} seen): waiting for them`,
      )
    }
    let head = fit[0]!.head!
    for (const p of fit) if (p.head! < head) head = p.head!
    this.floor = head
    const routing = [...fit].sort((a, b) =>
      a.head === b.head ? a.index - b.index : a.head! > b.head! ? -1 : 1,
    )
    return { head, routing }
  }

  /**
   * None of the answering providers serves the pool's chain (or it has none yet): when they agree on one,
   * that is the pool's chain from now on (a development node started afresh), and what was seen of the
   * previous one is forgotten.
   */
  private adoptChain(answering: Provider[]): void {
    const candidate = answering[0]!.identity!
    if (!answering.every((p) => sameChain(p.identity!, candidate))) {
      throw new ProvidersBehind(
        `${this.name}: the providers serve different chains (${answering
          .map((p) => `${p.label}: ${describeChain(p.identity!)}`)
          .join('; ')})`,
      )
    }
    const previous = this.served
    this.served = candidate
    this.floor = null
    for (const p of this.providers) {
      if (p.headChain && !sameChain(p.headChain, candidate)) {
        p.head = null
        p.headChain = null
      }
    }
    if (previous) {
      this.logger?.warn(
        { previous: describeChain(previous), now: describeChain(candidate) },
        `${this.name}: the providers now serve another chain (${describeChain(candidate)})`,
      )
    }
  }

  /** One log line per change of a provider's state (several providers only: alone, its user says it). */
  private setState(p: Provider, state: State): void {
    if (p.state === state) return
    const was = p.state
    p.state = state
    if (!this.logger) return
    const fields = { provider: p.label, head: p.head === null ? null : Number(p.head) }
    if (state === 'up') {
      if (was !== 'unknown') this.logger.info(fields, `${this.name}: provider ${p.label} is back in use`)
    } else if (state === 'down') {
      this.logger.warn(
        { ...fields, reason: p.reason },
        `${this.name}: provider ${p.label} is down (${p.reason}); using the others`,
      )
    } else if (state === 'lagging') {
      this.logger.warn(fields, `${this.name}: provider ${p.label} lags behind the others; not used`)
    } else if (state === 'syncing') {
      this.logger.warn(fields, `${this.name}: provider ${p.label} is syncing; not used`)
    } else if (state === 'other-chain') {
      this.logger.warn(
        { ...fields, chain: p.identity ? describeChain(p.identity) : null },
        `${this.name}: provider ${p.label} serves another chain than the others; not used`,
      )
    }
  }
}

/** A block asked by number, at or below `head`, that the provider answered it does not have; null if none. */
function missingBlock(calls: readonly RpcCall[], answers: readonly RpcAnswer[], head: bigint): bigint | null {
  for (const [i, call] of calls.entries()) {
    if (call.method !== 'eth_getBlockByNumber') continue
    const tag = call.params[0]
    if (typeof tag !== 'string' || !/^0x[0-9a-f]+$/i.test(tag)) continue
    const answer = answers[i]
    if (answer && !answer.error && answer.result === null && BigInt(tag) <= head) return BigInt(tag)
  }
  return null
}

function isTimeout(error: unknown): boolean {
  const cause = (error as { cause?: { name?: string } }).cause
  return cause?.name === 'TimeoutError'
}
