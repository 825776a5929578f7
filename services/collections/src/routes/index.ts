import type { RoutePlugin } from '@genesis/common'
import type { Context } from '../context.js'
import { addressRoutes } from './addresses.js'
import { collectionRoutes } from './collections.js'
import { itemRoutes } from './items.js'
import { publicationRoutes } from './publication.js'
import { reviewRoutes } from './reviews.js'

/** Every route of the service, mounted under /v1 by app.ts. */
export const routes: RoutePlugin<Context> = async (app, { ctx }) => {
  await app.register(collectionRoutes, { ctx })
  await app.register(publicationRoutes, { ctx })
  await app.register(itemRoutes, { ctx })
  await app.register(reviewRoutes, { ctx })
  await app.register(addressRoutes, { ctx })
}
