import type { FastifyBaseLogger } from 'fastify'

type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type ParentLogger = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean }

/**
 * A logger that makes its pino child (bound to the request id) on the first line logged at an enabled
 * level, and whose own children are made so too: a request logging nothing at `warn` pays for no pino
 * child (PERFORMANCE.md). A request's is made when its `log` is first read (request-log.ts). Given a level
 * of its own (a route's `logLevel`), it makes its child at once, to decide by that level.
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
    if (this.options.level !== undefined) this.made()
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
    // A child made already (a level raised on it, or one of its own given: a route's) decides by its own level.
    if (this.options.level !== undefined) this.made()
    if (this.child_ === undefined && this.parent.isLevelEnabled?.(level) === false) return
    const write = this.made()[level] as (...line: unknown[]) => void
    write.apply(this.child_, args)
  }
}

/** The logger to give Fastify: its children (one per request) are made lazily. */
export const lazyChildren = (logger: FastifyBaseLogger): LazyChildLogger =>
  new LazyChildLogger(logger, {}, {})
