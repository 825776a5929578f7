export * from './database.js'
export * from './fuzz.js'
export * from './identity.js'
export * from './tcp-proxy.js'
