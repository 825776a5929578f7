import type { Server } from 'node:http'
import closeWithGrace from 'close-with-grace'
import type { BaseConfig } from '../config.js'
import type { App } from './create-app.js'
import { serveMetrics } from './metrics.js'

export interface RunServiceOptions {
  app: App
  /**
   * PORT, HOST, METRICS_PORT (when above 0, /metrics is served there alone) and SHUTDOWN_TIMEOUT_MS: past it
   * the process exits with 1 even with requests in flight.
   */
  config: Pick<BaseConfig, 'PORT' | 'HOST' | 'SHUTDOWN_TIMEOUT_MS'> &
    Partial<Pick<BaseConfig, 'METRICS_PORT'>>
  /** Runs after the HTTP server has drained: stop background work, then close the database. */
  onClose?: () => Promise<void>
}

/**
 * Listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests finish,
 * runs onClose and exits 0; past the deadline it exits 1.
 */
export async function runService(options: RunServiceOptions): Promise<string> {
  const { app } = options
  let metrics: Server | undefined
  closeWithGrace(
    {
      delay: options.config.SHUTDOWN_TIMEOUT_MS,
      logger: { error: (message: unknown) => app.log.error(message) },
    },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'fatal error, shutting down')
      else app.log.info({ signal }, 'shutting down: draining in-flight requests')
      metrics?.close()
      await app.close()
      await options.onClose?.()
      app.log.info('shutdown complete')
    },
  )
  // Fastify logs "Server listening at …" once per network interface as it binds; the kit's one line below says
  // it once. Plugins are loaded first, so that only the bind itself runs with the quiet logger.
  await app.ready()
  const log = app.log
  app.log = log.child({}, { level: 'silent' })
  let address: string
  try {
    address = await app.listen({ port: options.config.PORT, host: options.config.HOST })
  } finally {
    app.log = log
  }
  const metricsPort = options.config.METRICS_PORT ?? 0
  if (metricsPort > 0) {
    metrics = await serveMetrics(app.metrics, metricsPort, options.config.HOST)
    log.info({ metricsPort }, 'listening: /metrics on its own port')
  }
  log.info({ address }, 'listening')
  return address
}
