import { type Admission, okJson } from '@genesis/common'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type CachedBody, type Encoding, negotiateEncoding } from '../grid/map-body.js'

export const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * Route options for @fastify/compress (its types are not in this package): routes that send bodies
 * compressed once in advance, binary (PNG) or too small to compress skip the kit's per-request
 * compression hooks, which would only look at each answer and pass. (No GET route decompresses: the kit
 * sees to that.)
 */
export const SELF_ENCODED = { compress: false } as object

/** Sends JSON that is already serialised (Fastify passes a string with a JSON content type as is). */
export const sendJson = (reply: FastifyReply, json: string | Buffer) => reply.type(JSON_TYPE).send(json)

const COMPRESS_FROM_BYTES = 1024

const encodingFor = (request: FastifyRequest, body: CachedBody): Encoding =>
  body.size < COMPRESS_FROM_BYTES ? 'identity' : negotiateEncoding(request.headers['accept-encoding'])

/**
 * Sends a cached body in the best encoding the client accepts, compressed once and reused (the routes
 * using it are SELF_ENCODED, so the kit does not compress again). A body made of slices is streamed as
 * they are, never joined.
 */
export function sendCached(request: FastifyRequest, reply: FastifyReply, body: CachedBody): void {
  reply.type(JSON_TYPE).header('vary', 'accept-encoding')
  const encoding = encodingFor(request, body)
  // Synchronous when nothing has to wait: the hot reads stay off the promise machinery.
  if (encoding === 'identity') {
    const single = body.single
    if (single) reply.send(single)
    else reply.header('content-length', body.size).send(body.stream())
    return
  }
  body.encoded(encoding).then(
    (bytes) => reply.header('content-encoding', encoding).send(bytes),
    (error: Error) => reply.send(error),
  )
}

export interface LargeAnswer {
  /**
   * Names the answer and its data version: concurrent requests for the same answer in the same encoding
   * share one piece of work (one admission turn), instead of each queueing for a turn of its own.
   */
  key: string
  /** The answer if it is made (or being made by another request) already. */
  existing: () => CachedBody | Promise<CachedBody> | undefined
  /** Makes it (the builders share concurrent builds of one answer). */
  build: () => Promise<CachedBody>
  /** Whether it is large: building or compressing it then takes a turn of `admission`. */
  large: boolean
  admission: Admission
}

/**
 * Sends an answer that may need work first: built, or compressed in the encoding this client takes. Work
 * already done or under way (for another request) is shared without waiting for a turn; new work on a
 * large answer waits for one, so that a flood of new rectangles is refused (503, Retry-After) rather than
 * built all at once.
 */
export async function sendLarge(request: FastifyRequest, reply: FastifyReply, answer: LargeAnswer) {
  const made = await answer.existing()
  const body = made !== undefined && isReady(request, made) ? made : await shared(request, answer, made)
  sendCached(request, reply, body)
  // Tells Fastify the answer is sent here (after the compression, when there is one).
  return reply
}

/** Work under way, by answer and encoding: a second request for it waits for the same result. */
const underWay = new Map<string, Promise<CachedBody>>()

function shared(
  request: FastifyRequest,
  answer: LargeAnswer,
  made: CachedBody | undefined,
): Promise<CachedBody> {
  const id = `${answer.key}|${negotiateEncoding(request.headers['accept-encoding'])}`
  const pending = underWay.get(id)
  if (pending) return pending
  const work = async () => {
    const built = made ?? (await answer.build())
    const encoding = encodingFor(request, built)
    if (encoding !== 'identity') await built.encoded(encoding)
    return built
  }
  const started = (answer.large ? answer.admission.run(work) : work()).finally(() => underWay.delete(id))
  underWay.set(id, started)
  return started
}

/** Sending it needs no work: uncompressed, or its compressed form is made (or being made). */
function isReady(request: FastifyRequest, body: CachedBody): boolean {
  const encoding = encodingFor(request, body)
  return encoding === 'identity' || body.has(encoding)
}

/**
 * Sends `{ ok: true, data }` with one JSON.stringify and no second pass through the response serialiser
 * (PERFORMANCE.md: land's pre-serialised answers). The response schemas document these shapes (and the
 * tests check answers against them); the serialisers that build `data` are typed from the same schemas.
 */
export const sendData = (reply: FastifyReply, data: unknown) => sendJson(reply, okJson(JSON.stringify(data)))
