import type { RoutePlugin } from '@genesis/common'
import type { Context } from '../context.js'
import { addressRoutes } from './addresses.js'
import { districtRoutes } from './districts.js'
import { estateRoutes } from './estates.js'
import { mapRoutes } from './map.js'
import { mapImageRoutes } from './map-images.js'
import { parcelRoutes } from './parcels.js'
import { publicationRoutes } from './publications.js'
import { statusRoutes } from './status.js'
import { translationRoutes } from './translations.js'

/** Every route of SPEC §4.3, JSON and PNG; app.ts mounts them under `/` and again under `/v1`. */
export const routes: RoutePlugin<Context> = async (app, { ctx }) => {
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
