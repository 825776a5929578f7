import pino, { type Logger } from 'pino'
import type { BaseConfig } from '../config.js'

export type { Logger } from 'pino'

/**
 * The process logger of a service: pino JSON lines with the service's name, used for the lines before the
 * app exists and handed to `buildApp`, so start-up and request logs share one shape.
 */
export function createLogger(service: string, config: Pick<BaseConfig, 'LOG_LEVEL'>): Logger {
  return pino({ name: service, level: config.LOG_LEVEL })
}
