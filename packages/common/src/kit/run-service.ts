import closeWithGrace from 'close-with-grace'
import type { App } from './create-app.js'

export interface RunServiceOptions {
  app: App
  port: number
  host: string
  /** After this long the process exits with 1 even if requests are still in flight. */
  shutdownTimeoutMs?: number
  /** Runs after the HTTP server has drained: close the database here. */
  onClose?: () => Promise<void>
}

/**
 * Listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests finish,
 * runs onClose and exits 0; past the deadline it exits 1.
 */
export async function runService(options: RunServiceOptions): Promise<string> {
  const { app } = options
  closeWithGrace(
    {
      delay: options.shutdownTimeoutMs ?? 10_000,
      logger: { error: (message: unknown) => app.log.error(message) },
    },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'fatal error, shutting down')
      else app.log.info({ signal }, 'shutting down: draining in-flight requests')
      await app.close()
      await options.onClose?.()
      app.log.info('shutdown complete')
    },
  )
  return app.listen({ port: options.port, host: options.host })
}
