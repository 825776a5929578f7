import { createRequire } from 'node:module'
import type { DestinationStream } from 'pino'

/** The fields of a pino line the pretty form reads. */
interface LogLine {
  req?: { method?: string; url?: string }
  res?: { statusCode?: number }
  responseTime?: unknown
  [key: string]: unknown
}

interface PrettyOptions {
  colorize: boolean
  singleLine: boolean
  translateTime: string
  ignore: string
  messageFormat: (log: LogLine, messageKey: string) => string
  destination?: number | NodeJS.WritableStream
}
type PrettyFactory = (options: PrettyOptions) => DestinationStream & NodeJS.WritableStream

const require = createRequire(import.meta.url)

/**
 * pino-pretty, when installed: a development dependency, so a production install (the image) has none
 * and logs JSON lines.
 */
function prettyFactory(): PrettyFactory | undefined {
  try {
    return require('pino-pretty') as PrettyFactory
  } catch {
    return undefined
  }
}

/** Whether logs should be made readable: LOG_FORMAT, else whether stdout is a terminal. */
export const wantsPrettyLogs = (format: string | undefined, isTTY = process.stdout.isTTY === true) =>
  format === 'pretty' || (format !== 'json' && isTTY)

/**
 * A stream that prints pino's lines one per line, readably: time, level, the message with a request's
 * method, URL, status and duration folded in, `prefix` (a service's name) before it. Written to
 * `destination` (stdout by default); undefined when pino-pretty is not installed.
 */
export function prettyLogStream(
  options: { prefix?: string; destination?: NodeJS.WritableStream } = {},
): (DestinationStream & NodeJS.WritableStream) | undefined {
  const pretty = prettyFactory()
  if (!pretty) return undefined
  const prefix = options.prefix === undefined ? '' : `${options.prefix.padEnd(11)} `
  return pretty({
    colorize: (options.destination ?? process.stdout) === process.stdout && process.stdout.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name,service,req,res,reqId,responseTime',
    messageFormat: (log, messageKey) => {
      let text = String(log[messageKey] ?? '')
      if (log.req) text += ` ${log.req.method} ${log.req.url}`
      if (log.res) text += ` → ${log.res.statusCode}`
      if (typeof log.responseTime === 'number') text += ` in ${log.responseTime.toFixed(1)} ms`
      return `${prefix}${text}`
    },
    ...(options.destination ? { destination: options.destination } : {}),
  })
}
