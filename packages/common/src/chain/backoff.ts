/*
 * One back-off for everything that follows a chain (and any other job that retries): attempts spaced 1,
 * 2, 4 … 128 s apart while they fail, and one log line per change of state (down, with the reason in one
 * line; back), instead of a line, let alone a stack trace, per failed attempt.
 */

export interface BackoffOptions {
  /** The wait after the first failure. */
  firstMs?: number
  /** The longest wait. */
  maxMs?: number
}

export interface OutageOptions extends BackoffOptions {
  /** How the attempts go on, for the "down" line (default: the back-off's). */
  retrying?: string
}

export const BACKOFF_FIRST_MS = 1000
export const BACKOFF_MAX_MS = 128_000

/** Waits doubling from `firstMs` to `maxMs` while attempts fail; back to none after a success. */
export class Backoff {
  private count = 0
  private until = 0
  private readonly firstMs: number
  readonly maxMs: number

  constructor(options: BackoffOptions = {}) {
    this.firstMs = options.firstMs ?? BACKOFF_FIRST_MS
    this.maxMs = options.maxMs ?? BACKOFF_MAX_MS
  }

  /** Failed attempts in a row. */
  get failures(): number {
    return this.count
  }

  /** An attempt failed: how long to wait before the next one. */
  failed(now = Date.now()): number {
    this.count++
    const delay = Math.min(this.maxMs, this.firstMs * 2 ** Math.min(this.count - 1, 30))
    this.until = now + delay
    return delay
  }

  succeeded(): void {
    this.count = 0
    this.until = 0
  }

  /** Whether the next attempt is due. */
  due(now = Date.now()): boolean {
    return now >= this.until
  }
}

/** What a failure was, in one line: the first line of its message, its code when it has one; no stack. */
export function errorReason(error: unknown): string {
  const object = error as { message?: unknown; code?: unknown; shortMessage?: unknown } | null
  const message =
    typeof object?.shortMessage === 'string'
      ? object.shortMessage
      : typeof object?.message === 'string'
        ? object.message
        : String(error)
  const line = message.split('\n')[0]!.trim()
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}

export interface OutageLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

/**
 * Whether something (a node, a chain's job) is down, with the back-off of its retries, and one log line
 * when it goes down (`what: down (reason); retrying with back-off`) and one when it is back.
 */
export class Outage {
  readonly backoff: Backoff
  private since: number | null = null
  private readonly retrying: string

  constructor(
    private readonly logger: OutageLogger,
    private readonly what: string,
    options: OutageOptions = {},
  ) {
    this.backoff = new Backoff(options)
    this.retrying = options.retrying ?? `retrying with back-off up to ${this.backoff.maxMs / 1000} s`
  }

  get down(): boolean {
    return this.since !== null
  }

  /** Whether the next attempt is due (always while up). */
  due(now = Date.now()): boolean {
    return this.backoff.due(now)
  }

  /** An attempt failed; the first failure of an outage is logged. Returns the wait before the next attempt. */
  failed(error: unknown, fields: object = {}, now = Date.now()): number {
    const retryInMs = this.backoff.failed(now)
    if (this.since === null) {
      this.since = now
      const reason = errorReason(error)
      this.logger.warn({ ...fields, reason, retryInMs }, `${this.what}: down (${reason}); ${this.retrying}`)
    }
    return retryInMs
  }

  /** An attempt succeeded; the end of an outage is logged. */
  recovered(fields: object = {}, now = Date.now()): void {
    if (this.since !== null) {
      const downS = Math.round((now - this.since) / 1000)
      this.logger.info(
        { ...fields, downS, failures: this.backoff.failures },
        `${this.what}: back after ${downS} s`,
      )
      this.since = null
    }
    this.backoff.succeeded()
  }
}
