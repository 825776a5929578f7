import { createRequire } from 'node:module'
import { Transform } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import type { DestinationStream } from 'pino'
import { escapeC1AndBidi, escapeUnsafeText } from '../display-text.js'

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
      // The message and URL are printed as they are: a request's text must not drive the terminal.
      return `${prefix}${escapeUnsafeText(text)}`
    },
    destination: escapingStream(options.destination ?? process.stdout),
  })
}

/**
 * pino-pretty prints the other fields as JSON, which escapes C0 controls but not C1 controls (CSI) or
 * bidi overrides: those are escaped on the way out. Our own colour codes are C0 (ESC) and pass.
 */
function escapingStream(destination: NodeJS.WritableStream): NodeJS.WritableStream {
  const utf8 = new StringDecoder('utf8') // a character split across chunks is decoded whole
  const escaping = new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _encoding, done) {
      done(null, escapeC1AndBidi(typeof chunk === 'string' ? chunk : utf8.write(chunk)))
    },
  })
  escaping.pipe(destination)
  return escaping
}
