import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifySchema } from 'fastify'
import { addressRoutes } from './addresses.js'
import { districtRoutes } from './districts.js'
import { estateRoutes } from './estates.js'
import { mapRoutes } from './map.js'
import type { LandRouteOptions } from './options.js'
import { parcelRoutes } from './parcels.js'
import { publicationRoutes } from './publications.js'
import { translationRoutes } from './translations.js'

export type { LandRouteOptions } from './options.js'

/** Every JSON route of SPEC §4.3; registered twice by buildApp, under `/` and `/v1`. */
export const landRoutes: FastifyPluginAsyncTypebox<LandRouteOptions & { hideFromDocs?: boolean }> = async (
  app,
  options,
) => {
  // Children get the dependencies only: passing `options` on would also pass the prefix and apply it twice.
  const deps: LandRouteOptions = { sql: options.sql, grid: options.grid }
  if (options.hideFromDocs) {
    // The unprefixed copies are the same operations; the OpenAPI document lists the /v1 ones.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true } as FastifySchema
    })
  }
  await app.register(addressRoutes, deps)
  await app.register(districtRoutes, deps)
  await app.register(estateRoutes, deps)
  await app.register(mapRoutes, deps)
  await app.register(parcelRoutes, deps)
  await app.register(publicationRoutes, deps)
  await app.register(translationRoutes, deps)
}
