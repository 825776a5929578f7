import { Outage } from '@genesis/common'

export interface Logger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface Periodic {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>
}

/**
 * Runs `task` every `intervalMs`, never two runs at once; the next run after a failed one tries again. A
 * failure is logged once, in one line, and the first success after it once: not a stack trace per run
 * while the database is away. The task's signal is aborted by stop(), so that a long run ends after the
 * batch under way.
 */
export function startPeriodic(
  name: string,
  intervalMs: number,
  task: (signal: AbortSignal) => Promise<unknown>,
  logger: Logger,
): Periodic {
  let running: Promise<void> | null = null
  const stopping = new AbortController()
  const outage = new Outage(logger, name, { retrying: `retrying every ${intervalMs / 1000} s` })
  const timer = setInterval(() => {
    if (running) return
    running = task(stopping.signal)
      .then(() => outage.recovered({ task: name }))
      .catch((err: unknown) => {
        outage.failed(err, { task: name })
      })
      .finally(() => {
        running = null
      })
  }, intervalMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      stopping.abort()
      await running
    },
  }
}
