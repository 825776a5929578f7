export * from './queries.js'
export * from './resources.js'
