export * from './images.js'
export * from './queries.js'
export * from './resources.js'
