import type { FastifyBaseLogger } from 'fastify'

type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type ParentLogger = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean }

/**
 * A logger that makes its pino child (bound to the request id) on the first line logged at an enabled
 * level, and whose own children are made so too. Fastify makes a child for every request, a cost that a
 * request logging nothing at `warn` need not pay (PERFORMANCE.md). The kit hands it to Fastify through
 * `childLoggerFactory`, Fastify itself getting no logger (request-log.ts): with a logger of its own Fastify
 * would time every request with two response listeners. The price is Fastify's check of each child a
 * factory other than its default returns (seven method lookups and an array per request, ~0.5 µs).
 */
export class LazyChildLogger implements FastifyBaseLogger {
  private child_: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.child_?.level ?? this.parent.level
  }

  set level(level: string) {
    this.made().level = level
  }

  fatal(...args: [unknown, string?, ...unknown[]]): void {
    this.log('fatal', args)
  }
  error(...args: [unknown, string?, ...unknown[]]): void {
    this.log('error', args)
  }
  warn(...args: [unknown, string?, ...unknown[]]): void {
    this.log('warn', args)
  }
  info(...args: [unknown, string?, ...unknown[]]): void {
    this.log('info', args)
  }
  debug(...args: [unknown, string?, ...unknown[]]): void {
    this.log('debug', args)
  }
  trace(...args: [unknown, string?, ...unknown[]]): void {
    this.log('trace', args)
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return ((this.child_ as ParentLogger | undefined) ?? this.parent).isLevelEnabled?.(level) ?? true
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): LazyChildLogger {
    return new LazyChildLogger(this.made(), bindings, options ?? {})
  }

  private made(): FastifyBaseLogger {
    this.child_ ??= this.parent.child(this.bindings, this.options)
    return this.child_
  }

  private log(level: Level, args: [unknown, string?, ...unknown[]]): void {
    // A child made later (a level raised on it) decides by its own level.
    if (this.child_ === undefined && this.parent.isLevelEnabled?.(level) === false) return
    const write = this.made()[level] as (...line: unknown[]) => void
    write.apply(this.child_, args)
  }
}

/** The logger to give Fastify: its children (one per request) are made lazily. */
export const lazyChildren = (logger: FastifyBaseLogger): LazyChildLogger =>
  new LazyChildLogger(logger, {}, {})
