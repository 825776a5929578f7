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
import { parcelViewRoutes } from './parcel-view.js'
import { parcelRoutes } from './parcels.js'
import { publicationRoutes } from './publications.js'
import { statusRoutes } from './status.js'
import { translationRoutes } from './translations.js'
import { atlasRoutes, legacyTileRoutes } from './v2/index.js'

/** The OpenAPI tag of the API's routes under `/`. */
export const UNVERSIONED_TAG = 'unversioned'

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
  // The OpenAPI document lists each operation once, under its first tag (the docs page repeats an
  // operation under every tag it has).
  app.addHook('onRoute', (route) => {
    const tags = (route.schema as { tags?: string[] } | undefined)?.tags
    if (tags && tags.length > 1) route.schema = { ...route.schema, tags: tags.slice(0, 1) } as FastifySchema
  })
  await app.register(async (unprefixed) => {
    // The same operations as under /v1, listed together under their own tag.
    unprefixed.addHook('onRoute', (route) => {
      const { summary } = (route.schema ?? {}) as { summary?: string }
      route.schema = {
        ...route.schema,
        tags: [UNVERSIONED_TAG],
        summary: `${summary ?? ''} (the same as /v1${route.url})`,
      } as FastifySchema
    })
    await unprefixed.register(apiRoutes, { ctx })
  })
  await app.register(apiRoutes, { prefix: '/v1', ctx })
  await app.register(atlasRoutes, { prefix: '/v2', ctx })
  await app.register(legacyTileRoutes, { prefix: '/v1', ctx })
  await app.register(parcelViewRoutes, { prefix: '/v1', ctx })
  await app.register(explorerRoutes, { ctx })
  await app.register(atlasPageRoutes)
}
