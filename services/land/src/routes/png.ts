import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../context.js'
import type { MapImageRequest } from '../render/draw.js'
import { imageETag } from '../render/etag.js'
import { imageKey } from '../render/image-renderer.js'
import { assertParcelLimit, computeViewport } from '../render/viewport.js'
import { notModified } from './validators.js'

export interface PngAnswer {
  /** Names the selection when something shorter than its parcels does (an estate id). */
  subject?: string
  /** The status of a refusal over the parcel limit (README "Error codes"). */
  tooManyParcelsStatus: 400 | 500
  cacheControl: string
  /** When the data drawn last changed, for Last-Modified (the /v2 surface sends it); asked once the checks pass. */
  lastModified?: () => Promise<number>
  /** Remember the URL, so that the same URL under the same data skips parsing next time. */
  rememberUrl?: boolean
}

/**
 * Every PNG route's answer: refuse what is over the limits before anything is drawn, answer 304 to a
 * client that holds the image, else the image (rendered once per data version and parameters, under the
 * renderer's admission bound).
 */
export async function answerPng(
  ctx: Pick<Context, 'map' | 'images'>,
  request: FastifyRequest,
  reply: FastifyReply,
  image: MapImageRequest,
  answer: PngAnswer,
) {
  assertParcelLimit(computeViewport(image), answer.tooManyParcelsStatus)
  const snapshot = ctx.map.snapshot()
  const key = imageKey(image, answer.subject)
  const etag = imageETag(snapshot.version, key)
  const validators = {
    etag,
    cacheControl: answer.cacheControl,
    ...(answer.lastModified === undefined ? {} : { lastModified: await answer.lastModified() }),
  }
  if (notModified(request, reply, validators)) return reply.code(304).send()
  const png = await ctx.images.png(snapshot, image, key)
  if (answer.rememberUrl) ctx.images.remember(request.url, snapshot.version, key, etag)
  return reply.type('image/png').send(png)
}
