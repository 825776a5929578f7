import { developmentDefaultsAllowed, errorResponses, type RoutePlugin } from '@genesis/common'
import {
  MetadataEstateParams,
  MetadataParcelParams,
  NotModified,
  TokenMetadata,
  TokenParams,
} from '@genesis/wire/land'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { estateMetadata, parcelMetadata } from '../../atlas/metadata.js'
import type { Context } from '../../context.js'
import { ESTATE_CONTRACT, LAND_CONTRACT } from '../../domain/constants.js'
import { GRID_MAX, GRID_MIN } from '../../domain/geometry.js'
import { parcelOfTokenId, parseUint256 } from '../../domain/token-id.js'
import {
  contractNotFound,
  invalidTokenId,
  parcelNotFound,
  publicUrlMissing,
  tokenNotFound,
} from '../../errors.js'
import type { GridView } from '../../grid/view.js'
import { sendJson } from '../send.js'
import { digest, notModified } from '../validators.js'

const tags = ['atlas']
const inGrid = (n: number) => n >= GRID_MIN && n <= GRID_MAX

/** ERC-721 token metadata of parcels and estates, as atlas-server answers it (the object itself, no envelope). */
export const atlasMetadataRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  const { config, atlas: atlasIndex } = ctx
  const landRegistry = (config.LAND_REGISTRY_ADDRESS ?? LAND_CONTRACT).toLowerCase()
  const estateRegistry = (config.ESTATE_REGISTRY_ADDRESS ?? ESTATE_CONTRACT).toLowerCase()
  const publicUrl = config.LAND_PUBLIC_URL?.replace(/\/+$/, '')
  // The Host header is the client's to choose: only in development may it make the links.
  const originAllowed = developmentDefaultsAllowed(config)

  function baseUrl(request: FastifyRequest): string {
    if (publicUrl !== undefined) return publicUrl
    if (!originAllowed) throw publicUrlMissing()
    return `${request.protocol}://${request.host}`
  }

  async function send(
    request: FastifyRequest,
    reply: FastifyReply,
    make: (view: GridView, base: string) => TokenMetadata | undefined,
    notFound: () => Error,
  ) {
    const atlas = await atlasIndex.current()
    const base = baseUrl(request)
    const metadata = make(atlas.grid, base)
    if (metadata === undefined) throw notFound()
    // Links made from the Host header differ per Host: a shared cache must keep one answer per Host.
    if (publicUrl === undefined) reply.header('vary', 'Host')
    const etag = `W/"${atlas.version}.${digest(base, request.url)}"`
    if (notModified(request, reply, { etag, lastModified: atlas.lastModified })) return reply.code(304).send()
    return sendJson(reply, JSON.stringify(metadata))
  }

  const response = { 200: TokenMetadata, 304: NotModified, ...errorResponses(400, 404, 503) }

  app.get(
    '/parcels/:x/:y',
    {
      schema: { tags, summary: "A parcel's ERC-721 metadata", params: MetadataParcelParams, response },
    },
    async (request, reply) => {
      const { x, y } = request.params
      return send(
        request,
        reply,
        (view, base) => (inGrid(x) && inGrid(y) ? parcelMetadata(view, x, y, base) : undefined),
        () => parcelNotFound(x, y),
      )
    },
  )

  app.get(
    '/estates/:id',
    {
      schema: { tags, summary: "An estate's ERC-721 metadata", params: MetadataEstateParams, response },
    },
    async (request, reply) => {
      // One spelling per estate: 007 is estate 7.
      const id = BigInt(request.params.id).toString()
      return send(
        request,
        reply,
        (view, base) => estateMetadata(view, id, base),
        () => tokenNotFound(estateRegistry, id),
      )
    },
  )

  app.get(
    '/contracts/:address/tokens/:id',
    {
      schema: {
        tags,
        summary: 'ERC-721 metadata of a token of the LAND or the estate registry',
        params: TokenParams,
        response,
      },
    },
    async (request, reply) => {
      const address = request.params.address.toLowerCase()
      const id = parseUint256(request.params.id)
      if (id === undefined) throw invalidTokenId(request.params.id)
      if (address === landRegistry) {
        const parcel = parcelOfTokenId(id)
        return send(
          request,
          reply,
          (view, base) => (parcel ? parcelMetadata(view, parcel.x, parcel.y, base) : undefined),
          () => tokenNotFound(address, id.toString()),
        )
      }
      if (address === estateRegistry) {
        return send(
          request,
          reply,
          (view, base) => estateMetadata(view, id.toString(), base),
          () => tokenNotFound(address, id.toString()),
        )
      }
      throw contractNotFound(address)
    },
  )
}
