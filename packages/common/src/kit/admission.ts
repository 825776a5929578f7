import { ServiceUnavailableError } from '../errors.js'

export interface AdmissionOptions {
  /** What is admitted, in the refusal's words and data (e.g. `renders`). */
  name: string
  /** At most this many run at once. */
  limit: number
  /** At most this many wait for a turn; past it a request is refused at once. */
  queue: number
  /** A request that waited this long without a turn is refused. */
  waitMs: number
  /** What the refusal's Retry-After says (default 1 s). */
  retryAfterS?: number
}

/** 503 `overloaded` with Retry-After: the work asked for is bounded and the bound is full. */
export class AdmissionRefused extends ServiceUnavailableError {
  constructor(options: AdmissionOptions, reason: 'queue_full' | 'waited_too_long') {
    const retryAfterS = options.retryAfterS ?? 1
    super(
      `The service is busy with other ${options.name} (${options.limit} at once, ${options.queue} waiting); retry in ${retryAfterS} s`,
      {
        code: 'overloaded',
        retryAfterS,
        data: {
          work: options.name,
          limit: options.limit,
          queue: options.queue,
          reason,
          retry_after_s: retryAfterS,
        },
      },
    )
  }
}

/**
 * A bound on costly work in one process: at most `limit` run at once, up to `queue` more wait their turn
 * (first come, first served) for at most `waitMs`, and the rest are refused at once with a 503 that says
 * when to come back. Whatever arrives, the process holds at most `limit` of the work in memory and
 * `queue` small waiting entries: a flood is answered, not piled up.
 */
export class Admission {
  private running = 0
  private readonly waiting: Array<{ start: () => void }> = []

  constructor(readonly options: AdmissionOptions) {
    if (!(options.limit >= 1)) throw new Error(`admission ${options.name}: limit must be at least 1`)
  }

  /** How many run now. */
  get inFlight(): number {
    return this.running
  }

  /** How many wait for a turn. */
  get queued(): number {
    return this.waiting.length
  }

  /** Runs `work` once it has a turn; rejects with AdmissionRefused when none comes in time. */
  async run<T>(work: () => T | Promise<T>): Promise<T> {
    await this.acquire()
    try {
      return await work()
    } finally {
      this.release()
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.options.limit) {
      this.running++
      return Promise.resolve()
    }
    if (this.waiting.length >= this.options.queue) {
      return Promise.reject(new AdmissionRefused(this.options, 'queue_full'))
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        start: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(entry)
        if (at !== -1) this.waiting.splice(at, 1)
        reject(new AdmissionRefused(this.options, 'waited_too_long'))
      }, this.options.waitMs)
      this.waiting.push(entry)
    })
  }

  private release(): void {
    // The turn passes straight to the next in line: `running` stays as it is.
    const next = this.waiting.shift()
    if (next) next.start()
    else this.running--
  }
}
