import type { RoutePlugin } from '@genesis/common'
import type { FastifySchema } from 'fastify'
import type { Context } from '../context.js'
import { addressRoutes } from './addresses.js'
import { atlasPageRoutes } from './atlas-page.js'
import { districtRoutes } from './districts.js'
import { estateRoutes } from './estates.js'
import { explorerRoutes } from './explorer.js'
import { mapRoutes } from './map.js'
import { mapImageRoutes } from './map-images.js'
import { parcelRoutes } from './parcels.js'
import { publicationRoutes } from './publications.js'
import { statusRoutes } from './status.js'
import { translationRoutes } from './translations.js'
import { atlasRoutes, legacyTileRoutes } from './v2/index.js'

/** The API, JSON and PNG: mounted under `/v1` and again under `/`. */
const apiRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  await app.register(addressRoutes, { ctx })
  await app.register(districtRoutes, { ctx })
  await app.register(estateRoutes, { ctx })
  await app.register(mapRoutes, { ctx })
  await app.register(mapImageRoutes, { ctx })
  await app.register(parcelRoutes, { ctx })
  await app.register(publicationRoutes, { ctx })
  await app.register(statusRoutes, { ctx })
  await app.register(translationRoutes, { ctx })
}

/**
 * Every route of the service: the API under `/` and `/v1`, atlas-server's surface under `/v2` (and its
 * legacy `/v1/tiles`), the explorer page at `/` and the Atlas view at `/atlas`.
 */
export const routes: RoutePlugin<Context> = async (app, { ctx }) => {
  await app.register(async (unprefixed) => {
    // The same operations as under /v1: the OpenAPI document lists those.
    unprefixed.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true } as FastifySchema
    })
    await unprefixed.register(apiRoutes, { ctx })
  })
  await app.register(apiRoutes, { prefix: '/v1', ctx })
  await app.register(atlasRoutes, { prefix: '/v2', ctx })
  await app.register(legacyTileRoutes, { prefix: '/v1', ctx })
  await app.register(explorerRoutes, { ctx })
  await app.register(atlasPageRoutes)
}
