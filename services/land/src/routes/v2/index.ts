import type { RoutePlugin } from '@genesis/common'
import type { Context } from '../../context.js'
import { atlasDistrictRoutes } from './districts.js'
import { atlasImageRoutes } from './map-images.js'
import { atlasMetadataRoutes } from './metadata.js'
import { atlasStatusRoutes } from './status.js'
import { atlasTileRoutes } from './tiles.js'

export { legacyTileRoutes } from './tiles.js'

/** atlas-server's /v2 surface, from the same grid; app.ts mounts it once, under `/v2`. */
export const atlasRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  await app.register(atlasTileRoutes, { ctx })
  await app.register(atlasMetadataRoutes, { ctx })
  await app.register(atlasImageRoutes, { ctx })
  await app.register(atlasDistrictRoutes, { ctx })
  await app.register(atlasStatusRoutes, { ctx })
}
