import type { FastifyInstance } from 'fastify'
import { BadRequestError } from '../errors.js'

/** How deep a JSON body may nest (objects and arrays) unless the service says otherwise. */
export const DEFAULT_BODY_MAX_DEPTH = 32

const QUOTE = 34
const BACKSLASH = 92
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93

/**
 * Whether JSON text opens more than `limit` objects and arrays inside one another, read in one pass without
 * parsing: brackets inside strings do not count. On text that is not JSON the answer may be either, but
 * JSON.parse refuses such text before it goes any deeper than this scan has seen, so the bound holds.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
  }
  return false
}

/** 400: the body nests deeper than the service reads. */
export const bodyTooDeep = (limit: number) =>
  new BadRequestError(`The body nests objects and arrays more than ${limit} deep`, {
    data: { max_depth: limit },
  })

/**
 * JSON bodies are parsed by Fastify's own parser (secure-json-parse, prototype poisoning refused) once a
 * linear scan has bounded their nesting. JSON.parse of a body nested a million deep holds the event loop
 * and builds an array or object per level, while no route reads more than a few levels; the scan reads
 * each character once and allocates nothing, so the worst body the size limit lets in stays cheap.
 */
export function installJsonBody(app: FastifyInstance, maxDepth: number) {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (nestsDeeperThan(body as string, maxDepth)) {
      done(bodyTooDeep(maxDepth), undefined)
      return
    }
    parse(request, body as string, done)
  })
}
