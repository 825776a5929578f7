import type { FastifyBaseLogger } from 'fastify'

type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type ParentLogger = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean }

/**
 * A request's logger that makes its pino child (bound to the request id) on the first line logged at an
 * enabled level. Fastify makes a child for every request, a cost that a request logging nothing at
 * `warn` need not pay (PERFORMANCE.md).
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

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options)
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

export const lazyChildLoggerFactory = (
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger => new LazyChildLogger(logger, bindings, options)
