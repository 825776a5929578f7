export * from './queries.js'
export * from './resources.js'
export type { ImageQuery, MapImageQuery } from '../render/schemas.js'
