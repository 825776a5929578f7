export type { ImageQuery, MapImageQuery } from '../render/schemas.js'
export * from './queries.js'
export * from './resources.js'
