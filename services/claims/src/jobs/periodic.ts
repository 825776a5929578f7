export interface Logger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface Periodic {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>
}

/**
 * Runs `task` every `intervalMs`, never two runs at once; a failed run is logged and the next one tries
 * again. The task's signal is aborted by stop(), so that a long run ends after the batch under way.
 */
export function startPeriodic(
  name: string,
  intervalMs: number,
  task: (signal: AbortSignal) => Promise<unknown>,
  logger: Logger,
): Periodic {
  let running: Promise<void> | null = null
  const stopping = new AbortController()
  const timer = setInterval(() => {
    if (running) return
    running = task(stopping.signal)
      .then(() => undefined)
      .catch((err: unknown) => logger.warn({ err, task: name }, `${name} failed`))
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
