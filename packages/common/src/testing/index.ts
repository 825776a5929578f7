export * from './database.js'
export * from './identity.js'
export * from './service.js'
