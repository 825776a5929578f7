export interface Logger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface Periodic {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>
}

/** Runs `task` every `intervalMs`, never two runs at once; a failed run is logged and the next one tries again. */
export function startPeriodic(
  name: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  logger: Logger,
): Periodic {
  let running: Promise<void> | null = null
  const timer = setInterval(() => {
    if (running) return
    running = task()
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
      await running
    },
  }
}
