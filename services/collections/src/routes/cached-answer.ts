import type { FastifyReply } from 'fastify'
import type { Context } from '../context.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/** An answer and whether it may be reused while the data stays as it is (false: it depends on the clock). */
export interface Built<T> {
  answer: T
  reusable: boolean
}

/**
 * Sends the answer kept for `key` under the current answers version, or builds it, serialises it with the
 * route's own response serialiser (the same bytes Fastify would send) and keeps it. Fastify sends bytes
 * with a JSON content type as they are. Without RPC_URL only: with it, each list asks the chain for
 * approvals, which no database version follows.
 */
export async function sendCachedAnswer<T>(
  ctx: Context,
  reply: FastifyReply,
  key: string,
  build: () => Promise<Built<T>>,
): Promise<FastifyReply> {
  if (ctx.chain) return reply.send((await build()).answer)
  const version = await ctx.answersVersion()
  const kept = ctx.answers.get(version, key)
  if (kept !== undefined) return reply.type(JSON_TYPE).send(kept)
  const { answer, reusable } = await build()
  const serialised = reply.serialize(answer)
  // kept encoded: a hit writes the bytes without encoding the text again
  const body =
    typeof serialised === 'string' ? Buffer.from(serialised) : Buffer.from(new Uint8Array(serialised))
  if (reusable) ctx.answers.set(version, key, body)
  return reply.type(JSON_TYPE).send(body)
}
