export * from './collection.js'
export * from './fields.js'
export * from './item.js'
export * from './publication.js'
