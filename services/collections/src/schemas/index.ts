export * from './collection.js'
export * from './curation.js'
export * from './fields.js'
export * from './item.js'
