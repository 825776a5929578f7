export * from './database.js'
export * from './identity.js'
