import { Envelope, errorResponses, type RoutePlugin } from '@genesis/common'
import {
  AddressParams,
  ContributionsEnvelope,
  District,
  DistrictsEnvelope,
  NotModified,
} from '@genesis/wire/land'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AtlasView } from '../../atlas/atlas-view.js'
import type { Context } from '../../context.js'
import { contributionsOf } from '../../db/contributions.js'
import { districtNotFound } from '../../errors.js'
import { SELF_ENCODED, sendCached, sendJson } from '../send.js'
import { digest, notModified } from '../validators.js'

const tags = ['atlas', 'districts']

/** One district's answer and validator, made once per Atlas view (a view's districts never change). */
interface DistrictAnswer {
  etag: string
  json: string
}
const answersOf = new WeakMap<object, Map<string, DistrictAnswer>>()

function districtAnswer(atlas: AtlasView, id: string): DistrictAnswer | undefined {
  let answers = answersOf.get(atlas)
  if (!answers) {
    answers = new Map(
      atlas.grid.data.districts.map((district) => [
        district.id,
        {
          etag: `W/"${atlas.version}.district.${digest(district.id)}"`,
          json: `{"ok":true,"data":${JSON.stringify(district)}}`,
        },
      ]),
    )
    answersOf.set(atlas, answers)
  }
  return answers.get(id)
}

/** The districts and contributions, the same data as the unversioned routes, with validators. */
export const atlasDistrictRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { atlas: atlasIndex, sql } = ctx
  app.get(
    '/districts',
    {
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: 'Every district, with its parcel count and centre',
        response: { 200: DistrictsEnvelope, 304: NotModified, ...errorResponses(503) },
      },
    },
    // Synchronous once the atlas is built: a hot read makes no promise.
    (request, reply) => atlasIndex.withAtlas((atlas) => answerDistricts(request, reply, atlas)),
  )

  const answerDistricts = (request: FastifyRequest, reply: FastifyReply, atlas: AtlasView) => {
    if (
      notModified(request, reply, {
        etag: `W/"${atlas.version}.districts"`,
        lastModified: atlas.lastModified,
      })
    )
      reply.code(304).send(null)
    else sendCached(request, reply, atlas.grid.districts())
  }
  const answerDistrict = (id: string, request: FastifyRequest, reply: FastifyReply, atlas: AtlasView) => {
    const answer = districtAnswer(atlas, id.toLowerCase())
    if (!answer) throw districtNotFound(id)
    if (notModified(request, reply, { etag: answer.etag, lastModified: atlas.lastModified }))
      reply.code(304).send(null)
    else sendJson(reply, answer.json)
  }
  app.get(
    '/districts/:id',
    {
      // Under a kilobyte: nothing to compress.
      ...SELF_ENCODED,
      schema: {
        tags,
        summary: 'One district, as /v2/districts lists it',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 200: Envelope(District), 304: NotModified, ...errorResponses(404, 503) },
      },
    },
    // Synchronous once the atlas is built; else answered when the promise settles (Fastify sends nothing more).
    (request, reply) =>
      atlasIndex.withAtlas((atlas) => answerDistrict(request.params.id, request, reply, atlas)),
  )

  app.get(
    '/addresses/:address/contributions',
    {
      schema: {
        tags,
        summary: 'LAND the address contributed to districts',
        params: AddressParams,
        response: { 200: ContributionsEnvelope, 304: NotModified, ...errorResponses(400, 503) },
      },
    },
    async (request, reply) => {
      const contributions = await contributionsOf(sql, request.params.address.toLowerCase())
      const json = `{"ok":true,"data":${JSON.stringify(contributions)}}`
      // Contributions live in the database, not in the grid: the answer itself is the version.
      if (notModified(request, reply, { etag: `W/"${digest(json)}"` })) return reply.code(304).send(null)
      return sendJson(reply, json)
    },
  )
}
