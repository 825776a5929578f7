import type { FastifyReply } from 'fastify'
import type { Context } from '../context.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/** An answer and whether it may be reused while the data stays as it is (false: it depends on the clock). */
export interface Built<T> {
  answer: T
  reusable: boolean
}

/**
 * Sends the answer kept for `key` under the current answers version, or the one being built for it, or
 * builds it (AnswerCache.answer), serialised with the route's own response serialiser (the same bytes
 * Fastify would send). Fastify sends bytes with a JSON content type as they are. Without RPC_URL only:
 * with it, each list asks the chain for approvals, which no database version follows.
 */
export async function sendCachedAnswer<T>(
  ctx: Context,
  reply: FastifyReply,
  key: string,
  build: () => Promise<Built<T>>,
): Promise<FastifyReply> {
  if (ctx.chain) return reply.send((await build()).answer)
  const version = await ctx.answersVersion()
  const body = await ctx.answers.answer(version, key, async () => {
    const { answer, reusable } = await build()
    const serialised = reply.serialize(answer)
    // kept encoded: a hit writes the bytes without encoding the text again
    return {
      body:
        typeof serialised === 'string' ? Buffer.from(serialised) : Buffer.from(new Uint8Array(serialised)),
      reusable,
    }
  })
  return reply.type(JSON_TYPE).send(body)
}
