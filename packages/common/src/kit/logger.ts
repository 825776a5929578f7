import pino, { type DestinationStream, type Logger } from 'pino'
import type { BaseConfig } from '../config.js'
import { prettyLogStream, wantsPrettyLogs } from './pretty-log.js'

export type { Logger } from 'pino'

/**
 * The process logger of a service: pino JSON lines with the service's name, used for the lines before the
 * app exists and handed to `buildApp`, so start-up and request logs share one shape. In a terminal (or
 * with LOG_FORMAT=pretty) the lines are printed readably instead, when pino-pretty is installed.
 * `destination` takes the JSON lines instead of stdout (a test reading what a job logs).
 */
export function createLogger(
  service: string,
  config: Pick<BaseConfig, 'LOG_LEVEL'> & Partial<Pick<BaseConfig, 'LOG_FORMAT'>>,
  destination?: DestinationStream,
): Logger {
  const options = { name: service, level: config.LOG_LEVEL }
  if (destination) return pino(options, destination)
  const pretty = wantsPrettyLogs(config.LOG_FORMAT) ? prettyLogStream() : undefined
  return pretty ? pino(options, pretty) : pino(options)
}
